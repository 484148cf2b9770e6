"""TF's `tf.sparse`: `SparseTensor` and the ops on it."""
from flowjit.frontend.export import install as _install
_install(globals(), "sparse")
