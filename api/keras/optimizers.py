"""TF's `tf.keras.optimizers`."""
from flowjit.frontend.state.optimizers import Adam, Optimizer, SGD
