"""TF's `tf.debugging`: assertions and numeric checks.

The functions live with their op families in frontend/ops/; this file is the namespace.
"""
from flowjit.frontend.ops.logging import (
    Assert, assert_equal, assert_greater, assert_greater_equal, assert_less, assert_less_equal,
    assert_near, assert_non_negative, assert_none_equal, assert_positive, assert_rank,
    assert_shapes, check_numerics)
from flowjit.frontend.ops.checks import ensure_shape

from flowjit.frontend.export import install as _install
_install(globals(), "debugging")
