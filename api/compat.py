"""TF's `tf.compat`: the string helpers (`as_bytes`, `as_text`, ...)."""
import flowjit.frontend.compat  # noqa: F401  (exports the helpers)
from flowjit.frontend.export import install as _install
_install(globals(), "compat")
