"""TF's `tf.optimizers` (the Keras optimizers)."""
from flowjit.frontend.optimizers import Adam, Optimizer, SGD
