"""Keras 3 computing with flowjit: Keras's own TensorFlow backend, loaded with `tensorflow`
bound to flowjit's TF API (`loader.py`) and the few TF internals it imports (`tf_internals.py`)."""
