"""TF's `tf.experimental.dtensor`: meshes, layouts and sharded tensors on XLA's SPMD
partitioner."""
from flowjit.frontend.distribute.dtensor import *  # noqa: F401,F403
from flowjit.frontend.distribute import sharded as _sharded
from flowjit.frontend.distribute.dtensor_dataset import DTensorDataset  # noqa: F401

from flowjit.frontend.export import install as _install
_install(globals(), "experimental.dtensor")
