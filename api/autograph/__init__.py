"""TF's `tf.autograph`."""
from flowjit.frontend.autograph import to_code

from . import experimental
