"""The part of `tf.keras` flowjit provides: `tf.keras.optimizers`."""
from . import optimizers
