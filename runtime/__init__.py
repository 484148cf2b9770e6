"""The runtime layer: NumPy kernels, the Plan executor, variable storage, XLA through PJRT.
It never imports `frontend` or `passes` (see ARCHITECTURE.md)."""
