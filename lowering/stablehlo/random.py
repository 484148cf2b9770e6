"""StableHLO lowering rules: random family."""
from __future__ import annotations
