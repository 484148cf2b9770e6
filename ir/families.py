"""The op families: one module per family in `ir/ops/`, and the same file name in every layer
that gives the family's ops a facet (kernels, lowering rules, API functions, gradients).

Each layer's package loads its families itself (`load_families(__name__, __path__, ...)` in
its `__init__.py`), so adding a family touches only the family's own files. A layer module
that is not a family (shared builders, rules for ops declared elsewhere) is named in that
call's `not_families`; any other module without an `ir/ops/` declaration module is an error
at import, since its registrations would otherwise never run.
"""
from __future__ import annotations

import importlib
import os
import pkgutil

_DECLARATIONS = os.path.join(os.path.dirname(__file__), "ops")


def _modules(path) -> list[str]:
    """The public module names (no leading underscore) directly in a package's `path`."""
    return sorted(m.name for m in pkgutil.iter_modules(path) if not m.name.startswith("_"))


def family_names() -> tuple[str, ...]:
    """Every op family: the declaration modules of `ir/ops/`."""
    return tuple(_modules([_DECLARATIONS]))


def orphan_modules(path, not_families=()) -> list[str]:
    """The modules in a layer's package `path` that are neither a family nor named in
    `not_families`."""
    families = set(family_names())
    return [m for m in _modules(path) if m not in families and m not in not_families]


def load_families(package: str, path, not_families=()) -> dict:
    """Import `<package>.<family>` for every family with a module in `path` (the package's
    `__path__`); family name -> module. Raises ImportError naming any module that is neither
    a family nor listed in `not_families`."""
    orphans = orphan_modules(path, not_families)
    if orphans:
        raise ImportError(
            f"{package}: {', '.join(m + '.py' for m in orphans)} has no declaration module in "
            f"ir/ops/ (declare the family's ops in ir/ops/<family>.py, or name a module that "
            f"is no op family in {package}'s not_families)")
    present = set(_modules(path))
    return {name: importlib.import_module(f"{package}.{name}")
            for name in family_names() if name in present}
