"""TF's `tf.data`: input pipelines (`Dataset`, `Iterator`, `Options`, `AUTOTUNE`, ...)."""
import flowjit.frontend.data.iterator  # noqa: F401  (exports its classes when imported)
import flowjit.frontend.data.tfrecord  # noqa: F401
from flowjit.frontend.export import install as _install

from . import experimental

_install(globals(), "data")
