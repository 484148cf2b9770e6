"""TF's `tf.keras.optimizers`."""
from flowjit.frontend.optimizers import Adam, Optimizer, SGD
