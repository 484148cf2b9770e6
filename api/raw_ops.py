"""TF's `tf.raw_ops`: the raw operations TF-backed libraries call directly (keyword arguments
only); flowjit provides the ones listed here."""
from flowjit.frontend.export import install as _install
_install(globals(), "raw_ops")
