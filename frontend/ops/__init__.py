"""The TF-named op API, one module per op family (`ir/families.py`), each public function
marked with its TF names where it is defined (`frontend/export.py`: `tf_export`)."""
from ...ir.families import load_families

# Composites of other families' ops, with no ops of their own: image, image_geometry,
# image_color (tf.image), matrix (tf.linalg), nn_composites (tf.nn), safe_math (tf.math's
# *_no_nan, xlogy, ...), program (tf.executing_eagerly, tf.group, ...), random_composites
# (tf.random's samplers), linear_operator (tf.linalg.LinearOperator*); axes: the
# axis-attribute helper the families share.
COMPOSITES = ("image", "image_geometry", "image_color", "matrix", "nn_composites", "safe_math",
              "program", "random_composites", "linear_operator")
FAMILIES = load_families(__name__, __path__, not_families=COMPOSITES + ("axes",))
from . import (image, image_color, image_geometry, linear_operator,  # noqa: E402,F401
               matrix, nn_composites, program, random_composites, safe_math)
