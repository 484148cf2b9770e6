"""TF's `tf.summary.experimental`: the default step and summary scopes."""
import flowjit.frontend.summary  # noqa: F401
from flowjit.frontend.export import install as _install
_install(globals(), "summary.experimental")
