"""TF's `tf.experimental.numpy`: NumPy's API on flowjit tensors (frontend/tnp.py)."""
import flowjit.frontend.tnp  # noqa: F401  (its definitions carry the export marks)
from flowjit.frontend.export import install as _install
_install(globals(), "experimental.numpy")
