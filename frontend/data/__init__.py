"""`tf.data`: datasets (dataset.py, transforms.py), their iterators eagerly and inside
`tf.function` (iterator.py), traced element functions (functions.py).

The engine is flowjit's own, not grain's. grain (a maintained TF-free input-pipeline
library) models a pipeline as a stateless map from an index to an element: its shuffle is a
global permutation of indices and its checkpoint is an index. TF's tf.data is a stream of
elements: a buffer shuffle, `interleave`'s cycle, `window`, `group_by_window`,
`padded_batch`, generators and text/CSV readers, with TF's element specs, cardinalities and
errors; each of these would be written again over grain, and grain's multiprocessing hands
elements between processes by pickling. What fits TF's semantics is taken from its design
instead: a checkpoint is the iterator's seeds and position (iterator.py), and where a
pipeline only moves indices (slices -> shuffle -> batch) whole batches are gathered by index
(`Dataset._indexed`). Parallel work runs on threads (NumPy kernels and the graph executor
release the GIL).
"""
# The modules that register the transformations in dataset.TRANSFORMATIONS (combine.py also
# registers Materialized in structure.DATASET_CLASSES)
from . import combine, composite_batch, resample, transforms  # noqa: F401
