"""TF's `tf.experimental.dtensor`: meshes, layouts and sharded tensors on XLA's SPMD
partitioner."""
from flowjit.frontend.dtensor import *  # noqa: F401,F403
from flowjit.frontend import sharded as _sharded  # noqa: F401,E402  (installs the sharded backend)

from flowjit.frontend.export import install as _install
_install(globals(), "experimental.dtensor")
