"""Op declarations: reduce family."""
from __future__ import annotations
