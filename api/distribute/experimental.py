"""TF's `tf.distribute.experimental`."""
from flowjit.frontend.distribute import ValueContext  # noqa: F401
