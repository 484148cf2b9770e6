"""Eager tensors, op dispatch and TF's conversion rules, Tensor operators, devices."""
