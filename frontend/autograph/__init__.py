"""AutoGraph: Python control flow on tensors becomes graph control flow.

`tf.function` (with `autograph=True`, the default) traces a converted copy of the user's
function: `if`/`while`/`for`, `break`/`continue`/`return` inside them, `and`/`or`/`not`,
conditional expressions, `assert` and `print` are rewritten into calls of runtime operators
that run plain Python on Python values and build `cond`/`while` nodes on tensors; what TF
leaves to Python (`print`, a tensor `assert`, lists) behaves as in TF unless the function
enables an optional `Feature` (features.py). Modules:
analysis (names, liveness), jumps (break/continue/return into flags), transforms (the
rewrite), converter (source, caching, compiling), operators + staging (the runtime),
lists (staged Python lists), lint (side effects in staged code), errors (user-code errors).
"""
from __future__ import annotations

import functools

from .converter import to_code
from . import operators  # noqa: F401  (the runtime converted code calls)
from .errors import AutoGraphWarning
from .features import Feature

__all__ = ["to_code", "do_not_convert", "set_loop_options", "AutoGraphWarning", "Feature"]


def do_not_convert(func=None):
    """Mark `func` to run as written, never converted (TF's
    `tf.autograph.experimental.do_not_convert`); usable with or without parentheses."""
    if func is None:
        return do_not_convert
    if isinstance(func, functools.partial) or not hasattr(func, "__code__"):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)
        wrapper.__ag_do_not_convert__ = True
        return wrapper
    func.__ag_do_not_convert__ = True
    return func


def set_loop_options(parallel_iterations=None, swap_memory=None, maximum_iterations=None,
                     shape_invariants=None):
    """Options for the enclosing loop. AutoGraph reads this call when it is the first
    statement of a loop body; anywhere else (or unconverted) it does nothing, as in TF."""
    return None
