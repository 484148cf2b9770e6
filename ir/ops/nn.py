"""Op declarations: nn family."""
from __future__ import annotations
