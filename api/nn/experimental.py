"""TF's `tf.nn.experimental`: the stateless and general forms of dropout."""
from flowjit.frontend.export import install as _install
_install(globals(), "nn.experimental")
