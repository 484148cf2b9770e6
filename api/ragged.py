"""TF's `tf.ragged`: building RaggedTensors and mapping ops over their values."""
from flowjit.frontend.export import install as _install
_install(globals(), "ragged")
