"""NumPy kernels: linalg family."""
from __future__ import annotations
