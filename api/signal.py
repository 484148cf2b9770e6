"""TF's `tf.signal`: FFTs, framing, windows, spectrograms, DCTs and mel filterbanks."""
from flowjit.frontend.export import install as _install
_install(globals(), "signal")
