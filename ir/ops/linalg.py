"""Op declarations: linalg family."""
from __future__ import annotations
