"""TF's `tf.nn`: activations, convolutions, pooling, losses, normalization.

The functions live with their op families in frontend/ops/; this file is the namespace.
"""

from flowjit.frontend.export import install as _install

from . import experimental  # noqa: F401

_install(globals(), "nn")
