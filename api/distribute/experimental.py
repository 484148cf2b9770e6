"""TF's `tf.distribute.experimental`."""
from flowjit.frontend.distribute.distribute import ValueContext  # noqa: F401
