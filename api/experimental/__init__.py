"""TF's `tf.experimental`: DTensor, NumPy's API (`tf.experimental.numpy`)."""
from . import dtensor, numpy
