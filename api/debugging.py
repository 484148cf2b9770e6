"""TF's `tf.debugging`: assertions and numeric checks.

The functions live with their op families in frontend/ops/; this file is the namespace.
"""

from flowjit.frontend.export import install as _install
_install(globals(), "debugging")
