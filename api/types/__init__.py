"""TF's `tf.types`: the trace-type protocol."""
from . import experimental
