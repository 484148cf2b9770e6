"""NumPy kernels: random family."""
from __future__ import annotations
