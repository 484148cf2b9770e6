"""TF's `tf.experimental`: DTensor, `Optional`, NumPy's API (`tf.experimental.numpy`)."""
import flowjit.frontend.data.iterator  # noqa: F401  (exports Optional)
from flowjit.frontend.export import install as _install

from . import dtensor, numpy

_install(globals(), "experimental")
