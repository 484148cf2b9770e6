"""TF's `tf.optimizers` (the Keras optimizers)."""
from flowjit.frontend.state.optimizers import Adam, Optimizer, SGD
