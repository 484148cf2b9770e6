"""TF's `tf.profiler`: profiles in TensorBoard's profile-plugin layout (frontend/profiler.py)."""
from . import experimental
