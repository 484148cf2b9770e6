"""Variable ops are reached through `Variable` methods (see frontend/variables.py); while
tracing, those methods record these ops."""
from __future__ import annotations

API_RENAMED = {
    "read_variable": "Variable.read_value", "assign_variable": "Variable.assign",
    "assign_add_variable": "Variable.assign_add", "assign_sub_variable": "Variable.assign_sub",
}
