"""Kernels for `print` and `assert`, with TF's tensor formatting (`summarize` elements per
dimension at each end)."""
from __future__ import annotations

import sys

import numpy as np

from ...ir.errors import InvalidArgumentError
from . import kernel

# Named output streams; resolved at run time so redirected sys.stdout/stderr are honoured.
_STREAMS = {"stderr": lambda: sys.stderr, "stdout": lambda: sys.stdout}


def register_stream(obj) -> str:
    """A name under which `print` finds an arbitrary file-like object."""
    name = f"stream:{id(obj)}"
    _STREAMS[name] = lambda: obj
    return name


def format_tensor(value, summarize: int = 3) -> str:
    """TF's `tf.print` format: `[1 2 3]`, nested brackets, `...` past `summarize` elements
    at each end of a dimension (summarize -1 prints everything)."""
    a = np.asarray(value)
    if a.ndim == 0:
        return _scalar(a[()])
    return _fmt(a, summarize)


# (short, round-trip) %g precisions per float type, as TF's FloatToBuffer picks them.
_DIGITS = {2: (3, 5), 4: (6, 9), 8: (15, 17)}


def _scalar(x) -> str:
    if isinstance(x, bytes):
        return '"' + x.decode("utf-8", "backslashreplace") + '"'
    if isinstance(x, (bool, np.bool_)):
        return "1" if x else "0"
    if isinstance(x, np.floating) or type(x).__name__ == "bfloat16":
        if not np.isfinite(float(x)):
            return str(float(x))
        short, full = (2, 4) if type(x).__name__ == "bfloat16" else _DIGITS[x.dtype.itemsize]
        text = f"{float(x):.{short}g}"
        return text if type(x)(float(text)) == x else f"{float(x):.{full}g}"
    return str(x)


def _fmt(a, n, depth=0) -> str:
    if a.ndim == 1:
        items = [_scalar(x) for x in _ends(a, n)]
        sep = " "
    else:
        items = [_fmt(x, n, depth + 1) for x in _ends(a, n)]
        sep = "\n" * (a.ndim - 1) + " " * (depth + 1)
    if n >= 0 and a.shape[0] > 2 * n:
        items = items[:n] + ["..."] + items[n:]
    return "[" + sep.join(items) + "]"


def _ends(a, n):
    if n < 0 or a.shape[0] <= 2 * n:
        return list(a)
    return list(a[:n]) + list(a[-n:])


def fill_template(template: str, placeholder: str, texts) -> str:
    """`template` with each `placeholder` replaced by the next of `texts`: the template is
    data from the graph, never a format spec (TF's `tf.strings.format` semantics)."""
    parts = template.split(placeholder)
    return parts[0] + "".join(t + p for t, p in zip(texts, parts[1:]))


@kernel("print")
def print_(*inputs, template, stream, summarize, end, placeholder):
    # TF prints a scalar string bare; inside tensors strings are quoted
    text = fill_template(template, placeholder, (
        x[()].decode("utf-8", "backslashreplace") if x.dtype == object and x.ndim == 0
        else format_tensor(x, summarize) for x in map(np.asarray, inputs)))
    out = _STREAMS[stream]()
    out.write(text + end)
    out.flush()
    return ()


@kernel("assert")
def assert_(condition, *data, message, summarize):
    if not bool(np.asarray(condition)):
        shown = "\n".join(format_tensor(d, summarize) for d in data)
        raise InvalidArgumentError(None, "assert", f"assertion failed: {message}"
                                   + (f"\n{shown}" if shown else ""))
    return ()
