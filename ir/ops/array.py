"""Op declarations: array family."""
from __future__ import annotations
