"""Op declarations: random family."""
from __future__ import annotations
