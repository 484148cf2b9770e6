"""TF's `tf.experimental`: DTensor."""
from . import dtensor
