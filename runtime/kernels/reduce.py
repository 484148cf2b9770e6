"""NumPy kernels: reduce family."""
from __future__ import annotations
