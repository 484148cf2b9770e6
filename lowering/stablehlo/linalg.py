"""StableHLO lowering rules: linalg family."""
from __future__ import annotations
