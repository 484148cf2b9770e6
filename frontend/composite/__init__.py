"""TF's composite tensors: `IndexedSlices`, `SparseTensor`, `RaggedTensor` and their specs.

Each is a Python object over component tensors (TF's `CompositeTensor`): tracing, the trace
cache, `tf.function` calls and results, and `tf.nest(expand_composites=True)` see the
components; the ops on them (`tf.sparse`, `tf.ragged`) are compositions of flowjit's dense
ops, so they run in every mode and differentiate through the components.
"""
