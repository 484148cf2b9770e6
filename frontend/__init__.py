"""What user code touches: tensors, the op API, variables, tracing and AutoGraph."""
