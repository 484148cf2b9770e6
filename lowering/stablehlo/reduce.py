"""StableHLO lowering rules: reduce family."""
from __future__ import annotations
