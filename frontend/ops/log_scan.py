"""tf.math.cumulative_logsumexp."""
from __future__ import annotations

from ..export import tf_export
from .reduce import _scan

cumulative_logsumexp = tf_export("math.cumulative_logsumexp")(
    _scan("cumulative_logsumexp", "Running log(sum(exp(x))) along `axis`; `exclusive` starts "
          "from -inf, `reverse` runs from the end."))
