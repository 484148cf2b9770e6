"""Test setup: check every eager kernel result against its inferred type, and keep
hypothesis quick enough for the 2-core CI machine."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))  # tests import `helpers`

os.environ.setdefault("FLOWJIT_CHECK_KERNELS", "1")

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("ci", max_examples=25, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
