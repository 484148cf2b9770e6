"""TF's `tf.lookup`: static and mutable key -> value tables."""
import flowjit.frontend.ops.lookup  # noqa: F401  (exports the tables)
from flowjit.frontend.export import install as _install

from . import experimental  # noqa: F401

_install(globals(), "lookup")
