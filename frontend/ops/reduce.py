"""TF-named API: reduce family."""
from __future__ import annotations

EXPORTS: dict = {}
API_FOR_OP: dict = {}
