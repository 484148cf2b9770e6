"""TF's `tf.distribute`: MirroredStrategy."""
from flowjit.frontend.distribute import *  # noqa: F401,F403

from . import experimental
