"""TF's `tf.random`: stateful (seeded) and stateless random numbers.

The functions live with their op families in frontend/ops/; this file is the namespace.
"""

from flowjit.frontend.state import random_generator as _random_generator  # noqa: F401
from flowjit.frontend.export import install as _install
_install(globals(), "random")
