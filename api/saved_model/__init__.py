"""TF's `tf.saved_model`: save and load without pickle."""
from flowjit.frontend.state.saved_model import SaveOptions, load, save

from . import experimental  # noqa: F401
