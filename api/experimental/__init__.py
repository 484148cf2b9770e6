"""TF's `tf.experimental`: DTensor, `Optional`."""
import flowjit.frontend.data.iterator  # noqa: F401  (exports Optional)
from flowjit.frontend.export import install as _install

from . import dtensor

_install(globals(), "experimental")
