"""The TF-named op API, one module per op family (`ir/families.py`), each public function
marked with its TF names where it is defined (`frontend/export.py`: `tf_export`)."""
from ...ir.families import load_families

# Composites of other families' ops, with no ops of their own: image, image_geometry,
# image_color (tf.image), matrix (tf.linalg), nn_composites (tf.nn), safe_math (tf.math's
# *_no_nan, xlogy, ...), program (tf.executing_eagerly, tf.group, ...); axes: the
# axis-attribute helper the families share.
COMPOSITES = ("image", "image_geometry", "image_color", "matrix", "nn_composites", "safe_math",
              "program", "array_composites", "math_composites", "initializers",
              "debug_settings")
FAMILIES = load_families(__name__, __path__, not_families=COMPOSITES + ("axes",))
from . import (image, image_color, image_geometry, matrix, nn_composites,  # noqa: E402,F401
               program, safe_math)
from . import (array_composites, debug_settings, initializers,  # noqa: E402,F401
               math_composites)
