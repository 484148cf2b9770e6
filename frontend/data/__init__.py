"""`tf.data`: datasets (dataset.py, transforms.py), their iterators eagerly and inside
`tf.function` (iterator.py), traced element functions (functions.py)."""
