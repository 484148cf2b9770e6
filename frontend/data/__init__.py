"""`tf.data`: datasets (dataset.py, transforms.py), their iterators eagerly and inside
`tf.function` (iterator.py), traced element functions (functions.py)."""
# The modules that register the transformations in dataset.TRANSFORMATIONS (combine.py also
# registers Materialized in structure.DATASET_CLASSES)
from . import combine, transforms  # noqa: F401
