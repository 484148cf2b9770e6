"""The TF-named op API, one module per op family (`ir/families.py`), each public function
marked with its TF names where it is defined (`frontend/export.py`: `tf_export`)."""
from ...ir.families import load_families

# image: composites of other families' ops (tf.image), with no ops of its own; axes: the
# axis-attribute helper the families share.
FAMILIES = load_families(__name__, __path__, not_families=("image", "axes"))
from . import image  # noqa: E402,F401
