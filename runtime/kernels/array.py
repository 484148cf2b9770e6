"""NumPy kernels: array family."""
from __future__ import annotations
