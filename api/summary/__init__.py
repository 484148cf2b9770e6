"""TF's `tf.summary`: TensorBoard event files (frontend/summary.py)."""
import flowjit.frontend.summary  # noqa: F401  (its definitions carry the export marks)
from flowjit.frontend.export import install as _install
from . import experimental
_install(globals(), "summary")
