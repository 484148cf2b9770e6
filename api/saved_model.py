"""TF's `tf.saved_model`: save and load without pickle."""
from flowjit.frontend.state.saved_model import SaveOptions, load, save
