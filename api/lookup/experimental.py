"""TF's `tf.lookup.experimental`: the mutable table."""
import flowjit.frontend.ops.lookup  # noqa: F401  (exports the tables)
from flowjit.frontend.export import install as _install

_install(globals(), "lookup.experimental")
