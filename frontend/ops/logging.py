"""`tf.print`, `tf.debugging.assert_*` and `tf.debugging.Assert`: side effects that run in
program order eagerly and inside traced functions."""
from __future__ import annotations

import sys

from ...ir import errors
from ...runtime.kernels.logging import register_stream
from ..dispatch import apply, convert_pair, convert_to_tensor
from ..tensor import Tensor


def _is_tensor_like(x) -> bool:
    return isinstance(x, Tensor) or hasattr(x, "_as_tensor") or type(x).__name__ == "ndarray"


def _stream_name(stream) -> str:
    if stream is None or stream is sys.stderr:
        return "stderr"
    if stream is sys.stdout:
        return "stdout"
    if isinstance(stream, str):
        if stream in ("stderr", "stdout"):
            return stream
        raise ValueError(f"print: unsupported output_stream {stream!r}; use sys.stdout, "
                         f"sys.stderr or a file-like object")
    if not hasattr(stream, "write"):
        raise ValueError(f"print: output_stream must have a write() method, got {stream!r}")
    return register_stream(stream)


def print(*inputs, output_stream=None, summarize=3, sep=" ", end="\n", name=None):  # noqa: A001
    """TF's `tf.print`: tensors formatted like TF (summarize elements per dimension end)."""
    tensors, parts = [], []
    for x in inputs:
        if _is_tensor_like(x):
            tensors.append(convert_to_tensor(x))
            parts.append("{}")
        else:
            parts.append(str(x).replace("{", "{{").replace("}", "}}"))
    summarize = -1 if summarize is None else int(summarize)
    apply("print", tuple(tensors), {"template": sep.join(parts),
                                    "stream": _stream_name(output_stream),
                                    "summarize": summarize, "end": end})


def Assert(condition, data, summarize=None, name=None):  # noqa: N802  (TF's name)
    """Raise InvalidArgumentError showing `data` when `condition` is false (when it runs)."""
    condition = convert_to_tensor(condition)
    items = [convert_to_tensor(d) for d in data if _is_tensor_like(d)]
    texts = [str(d) for d in data if not _is_tensor_like(d)]
    apply("assert", (condition, *items), {"message": " ".join(texts) or (name or "Assert"),
                                          "summarize": 3 if summarize is None else summarize})


def _assert_all(opname, cond, x, y, message, summarize):
    from .reduce import reduce_all
    msg = f"{message + ': ' if message else ''}Condition {opname} did not hold element-wise " \
          f"[at {errors.user_frame()}]"
    data = (x,) if y is None else (x, y)
    apply("assert", (reduce_all(cond), *data),
          {"message": msg, "summarize": 3 if summarize is None else summarize})


def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    x, y = convert_pair(x, y)
    from .math import equal
    _assert_all("x == y", equal(x, y), x, y, message, summarize)


def assert_none_equal(x, y, data=None, summarize=None, message=None, name=None):
    x, y = convert_pair(x, y)
    from .math import not_equal
    _assert_all("x != y", not_equal(x, y), x, y, message, summarize)


def assert_greater(x, y, data=None, summarize=None, message=None, name=None):
    x, y = convert_pair(x, y)
    from .math import greater
    _assert_all("x > y", greater(x, y), x, y, message, summarize)


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None):
    x, y = convert_pair(x, y)
    from .math import greater_equal
    _assert_all("x >= y", greater_equal(x, y), x, y, message, summarize)


def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    x, y = convert_pair(x, y)
    from .math import less
    _assert_all("x < y", less(x, y), x, y, message, summarize)


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None):
    x, y = convert_pair(x, y)
    from .math import less_equal
    _assert_all("x <= y", less_equal(x, y), x, y, message, summarize)


_EPS = {"float16": 9.77e-4, "bfloat16": 7.81e-3, "float32": 1.19e-7, "float64": 2.22e-16}


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None,
                name=None):
    """|x - y| <= atol + rtol * |y| elementwise (defaults: 10 * eps of the dtype, as TF)."""
    x, y = convert_pair(x, y)
    from .math import abs as _abs, less_equal
    eps = 10 * _EPS.get(x.dtype.name, 0.0)
    rtol = convert_pair(x, eps if rtol is None else rtol)[1]
    atol = convert_pair(x, eps if atol is None else atol)[1]
    tol = atol + rtol * _abs(y)
    _assert_all("x and y are close", less_equal(_abs(x - y), tol), x, y, message, summarize)


def assert_rank(x, rank, message=None, name=None):
    """Raise ValueError at once when the rank is known, else check when the graph runs."""
    x = convert_to_tensor(x)
    want = int(rank)
    have = x.shape.rank
    if have is not None:
        if have != want:
            raise ValueError(f"{message + ': ' if message else ''}Tensor must have rank {want}."
                             f" Received rank {have}, shape {x.shape} [at {errors.user_frame()}]")
        return None
    from .array import rank as _rank
    from .math import equal
    apply("assert", (equal(_rank(x), want),), {"message": f"Tensor must have rank {want}",
                                               "summarize": 3})


EXPORTS = {
    "": ["print", "Assert", "assert_equal", "assert_greater", "assert_less", "assert_rank"],
    "debugging": ["Assert", "assert_equal", "assert_none_equal", "assert_greater",
                  "assert_greater_equal", "assert_less", "assert_less_equal", "assert_near",
                  "assert_rank"],
}
API_FOR_OP = {"print": "print", "assert": "debugging.Assert"}
