"""Errors raised while tracing converted code, shown in the user's terms.

Converted code is compiled from an AST that keeps the user's file name and line numbers, and
its generated helpers carry the user function's name, so Python's own traceback already points
at user lines. On top of that, the outermost converted call re-raises an exception with TF's
"in user code:" block: the user frames (converted ones marked `*`) with their source lines,
then the original message.
"""
from __future__ import annotations

import linecache
import os

from ...ir import errors as _errors


class AutoGraphWarning(UserWarning):
    """Conversion fell back to plain Python, or a Python side effect sits in staged code."""


class InaccessibleTensorError(ValueError):
    """TF's error for a tensor used outside the staged region (branch, loop body) that
    made it, e.g. appended to an outer Python list there."""


class ConversionError(Exception):
    """Why a function could not be converted (it then runs as written)."""


_PKG = _errors._PKG_DIR
_USER_DIRS = tuple(os.path.join(_PKG, d) for d in ("tests", "examples", "bench"))


def is_user_file(filename: str) -> bool:
    """The same rule as `errors.user_frame`: outside flowjit, or its tests/examples."""
    if filename.startswith("<frozen"):
        return False
    return not filename.startswith(_PKG) or filename.startswith(_USER_DIRS)


def _frames(tb, converted_codes):
    out = []
    while tb is not None:
        code = tb.tb_frame.f_code
        if is_user_file(code.co_filename):
            entry = (code.co_filename, tb.tb_lineno, code.co_name, code in converted_codes)
            if not out or out[-1][:2] != entry[:2]:
                out.append(entry)
        tb = tb.tb_next
    return out


def user_code_message(exc, converted_codes) -> str | None:
    frames = _frames(exc.__traceback__, converted_codes)
    if not frames:
        return None
    lines = ["in user code:", ""]
    for filename, lineno, fname, converted in frames:
        mark = "  *" if converted else ""
        lines.append(f'    File "{filename}", line {lineno}, in {fname}{mark}')
        src = linecache.getline(filename, lineno).strip()
        if src:
            lines.append(f"        {src}")
    lines.append("")
    msg = str(exc)
    body = f"{type(exc).__name__}: {msg}".splitlines() or [type(exc).__name__]
    lines.extend("    " + ln if ln else "" for ln in body)
    lines.append("")
    return "\n".join(lines)


_PLAIN = (ValueError, TypeError, NotImplementedError, RuntimeError, AssertionError, IndexError,
          AttributeError, NameError, ZeroDivisionError, ArithmeticError, LookupError)


def rewrite(exc, converted_codes):
    """The exception to raise instead of `exc`: same type, message with the user-code block.
    Types whose constructor does not take one message keep `exc` and get a note instead."""
    msg = user_code_message(exc, converted_codes)
    if msg is None:
        return exc
    new = None
    try:
        if isinstance(exc, _errors.OpError):
            new = type(exc)(exc.node_def, exc.op, msg)
        elif isinstance(exc, _PLAIN) and not isinstance(exc, KeyError):
            new = type(exc)(msg)
            if str(new) != msg:
                new = None
    except Exception:  # an exception class with its own constructor signature
        new = None
    if new is None:
        exc.add_note(msg)
        exc._ag_rewritten = True
        return exc
    new._ag_rewritten = True
    new.__traceback__ = exc.__traceback__
    return new
