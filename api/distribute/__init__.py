"""TF's `tf.distribute`: MirroredStrategy."""
from flowjit.frontend.distribute.distribute import *  # noqa: F401,F403

from . import experimental

from flowjit.frontend.export import install as _install
_install(globals(), "distribute")
