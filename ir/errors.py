"""TF's exception classes (`tf.errors`). They live in `ir` so every layer can raise them.

`OpError(node_def, op, message)` keeps TF's constructor. `user_frame()` finds the first stack
frame outside flowjit, so every error can name the user's source line. A message keeps TF's text
unchanged (code matches on it); the user's line goes beside it: in the "in user code:" block of
an error raised while tracing (as TF), and as an exception note (`noted`) otherwise.
"""
from __future__ import annotations

import os
import sys

OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS, \
    PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE, \
    UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS, UNAUTHENTICATED = range(17)


class OpError(Exception):
    """The base of errors raised while running (or tracing) an op."""

    error_code = UNKNOWN

    def __init__(self, node_def, op, message, *args):
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message

    def __str__(self):
        return self.message


def _error(name, code, base=OpError):
    cls = type(name, (base,), {"error_code": code, "__doc__": f"TF's `errors.{name}`."})

    def __init__(self, node_def=None, op=None, message="", *args):
        OpError.__init__(self, node_def, op, message, *args)

    cls.__init__ = __init__
    return cls


CancelledError = _error("CancelledError", CANCELLED)
UnknownError = _error("UnknownError", UNKNOWN)
InvalidArgumentError = _error("InvalidArgumentError", INVALID_ARGUMENT)
DeadlineExceededError = _error("DeadlineExceededError", DEADLINE_EXCEEDED)
NotFoundError = _error("NotFoundError", NOT_FOUND)
AlreadyExistsError = _error("AlreadyExistsError", ALREADY_EXISTS)
PermissionDeniedError = _error("PermissionDeniedError", PERMISSION_DENIED)
ResourceExhaustedError = _error("ResourceExhaustedError", RESOURCE_EXHAUSTED)
FailedPreconditionError = _error("FailedPreconditionError", FAILED_PRECONDITION)
AbortedError = _error("AbortedError", ABORTED)
OutOfRangeError = _error("OutOfRangeError", OUT_OF_RANGE)
UnimplementedError = _error("UnimplementedError", UNIMPLEMENTED)
InternalError = _error("InternalError", INTERNAL)
UnavailableError = _error("UnavailableError", UNAVAILABLE)
DataLossError = _error("DataLossError", DATA_LOSS)
UnauthenticatedError = _error("UnauthenticatedError", UNAUTHENTICATED)


class OperatorNotAllowedInGraphError(TypeError):
    """Raised when Python needs a concrete value of a symbolic tensor (`bool`, iteration)."""


_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Folders inside the package that hold user-level code (their frames count as the user's).
_USER_DIRS = tuple(os.path.join(_PKG_DIR, d) for d in ("tests", "examples", "bench"))
_IS_USER_FILE: dict = {}   # co_filename -> bool; tracing asks once per recorded op


def _is_user_file(fn: str) -> bool:
    """Classify a file (and remember it) the first time its frame is met."""
    user = _IS_USER_FILE[fn] = not fn.startswith("<frozen") and (
        not fn.startswith(_PKG_DIR) or fn.startswith(_USER_DIRS))
    return user


def _user_frame_object(f):
    known = _IS_USER_FILE
    while f is not None:
        fn = f.f_code.co_filename
        user = known.get(fn)
        if user or (user is None and _is_user_file(fn)):
            return f
        f = f.f_back
    return None


def user_frame() -> str:
    """`file:line (function)` of the innermost frame outside the flowjit package."""
    f = _user_frame_object(sys._getframe(1))
    if f is None:
        return "<unknown>"
    return f"{f.f_code.co_filename}:{f.f_lineno} ({f.f_code.co_name})"


def user_line() -> str | None:
    """`file:line` of the innermost frame outside the flowjit package (None if none is)."""
    f = _user_frame_object(sys._getframe(1))
    return None if f is None else f"{f.f_code.co_filename}:{f.f_lineno}"


USER_LINE_NOTE = "raised for the user's code at "


def noted(exc: BaseException, from_traceback=False) -> BaseException:
    """`exc` with the user's source line as a note: Python prints it under the traceback,
    and `str(exc)` stays TF's message. The line is the caller's, or with `from_traceback` the
    innermost user frame `exc` passed through. The first note wins; later calls add nothing."""
    notes = getattr(exc, "__notes__", ())
    if any(n.startswith(USER_LINE_NOTE) for n in notes) or str(exc).startswith("in user code:"):
        return exc   # noted already, or AutoGraph's block shows the line
    where = _traceback_user_frame(exc.__traceback__) if from_traceback else user_frame()
    if where is not None:
        exc.add_note(USER_LINE_NOTE + where)
    return exc


def _traceback_user_frame(tb) -> str | None:
    found = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if _IS_USER_FILE.get(code.co_filename, None) or (
                code.co_filename not in _IS_USER_FILE and _is_user_file(code.co_filename)):
            found = f"{code.co_filename}:{tb.tb_lineno} ({code.co_name})"
        tb = tb.tb_next
    return found
