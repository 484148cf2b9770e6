"""TF's `tf.strings`: string tensors.

The functions live with their op families in frontend/ops/; this file is the namespace.
"""
from flowjit.frontend.ops.strings import (
    as_string, format, join, length, lower, reduce_join, regex_full_match, split, strip, substr,
    to_number, upper)

from flowjit.frontend.export import install as _install
_install(globals(), "strings")
