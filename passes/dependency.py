"""Pass module (being written)."""
from __future__ import annotations
