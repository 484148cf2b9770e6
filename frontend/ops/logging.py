"""`tf.print`, `tf.debugging.assert_*` and `tf.debugging.Assert`: side effects that run in
program order eagerly and inside traced functions."""
from __future__ import annotations

import itertools
import sys

from ...ir import errors
from ...runtime.kernels.logging import register_stream
from ..eager.dispatch import apply, convert_pair, convert_to_tensor
from ..export import runs, tf_export
from ..eager.tensor import Tensor


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


@tf_export("print")
def print(*inputs, output_stream=None, summarize=3, sep=" ", end="\n", name=None):  # noqa: A001
    """TF's `tf.print`: tensors formatted like TF (summarize elements per dimension end)."""
    tensors = [convert_to_tensor(x) for x in inputs if _is_tensor_like(x)]
    placeholder, template = _template(inputs, sep, len(tensors))
    summarize = -1 if summarize is None else int(summarize)
    apply("print", tuple(tensors), {"template": template, "placeholder": placeholder,
                                    "stream": _stream_name(output_stream),
                                    "summarize": summarize, "end": end})


def _template(inputs, sep: str, slots: int) -> tuple:
    """(placeholder, template): the printed text with a placeholder for each tensor, one
    that the other text does not hold (`{}`, else `{0}`, `{1}`, ...), as TF picks one."""
    texts = [None if _is_tensor_like(x) else str(x) for x in inputs]
    for k in itertools.count(-1):  # ends: the text holds finitely many `{k}`
        placeholder = "{}" if k < 0 else f"{{{k}}}"
        template = sep.join(placeholder if t is None else t for t in texts)
        if template.count(placeholder) == slots:
            return placeholder, template


@tf_export("debugging.Assert", "Assert")
@runs("assert")
def Assert(condition, data, summarize=None, name=None):  # noqa: N802  (TF's name)
    """Raise InvalidArgumentError showing `data` when `condition` is false (when it runs)."""
    condition = convert_to_tensor(condition)
    items = [convert_to_tensor(d) for d in data if _is_tensor_like(d)]
    texts = [str(d) for d in data if not _is_tensor_like(d)]
    apply("assert", (condition, *items), {"message": " ".join(texts) or (name or "Assert"),
                                          "summarize": 3 if summarize is None else summarize})


def _assert_all(opname, cond, x, y, message, summarize):
    from .reduce import reduce_all
    msg = f"{message + ': ' if message else ''}Condition {opname} did not hold element-wise"
    data = (x,) if y is None else (x, y)
    apply("assert", (reduce_all(cond), *data),
          {"message": msg, "summarize": 3 if summarize is None else summarize})


@tf_export("debugging.assert_equal", "assert_equal")
def assert_equal(x, y, message=None, summarize=None, name=None):
    x, y = convert_pair(x, y)
    from .math import equal
    _assert_all("x == y", equal(x, y), x, y, message, summarize)


@tf_export("debugging.assert_none_equal")
def assert_none_equal(x, y, summarize=None, message=None, name=None):
    x, y = convert_pair(x, y)
    from .math import not_equal
    _assert_all("x != y", not_equal(x, y), x, y, message, summarize)


@tf_export("debugging.assert_greater", "assert_greater")
def assert_greater(x, y, message=None, summarize=None, name=None):
    x, y = convert_pair(x, y)
    from .math import greater
    _assert_all("x > y", greater(x, y), x, y, message, summarize)


@tf_export("debugging.assert_greater_equal")
def assert_greater_equal(x, y, message=None, summarize=None, name=None):
    x, y = convert_pair(x, y)
    from .math import greater_equal
    _assert_all("x >= y", greater_equal(x, y), x, y, message, summarize)


@tf_export("debugging.assert_less", "assert_less")
def assert_less(x, y, message=None, summarize=None, name=None):
    x, y = convert_pair(x, y)
    from .math import less
    _assert_all("x < y", less(x, y), x, y, message, summarize)


@tf_export("debugging.assert_less_equal")
def assert_less_equal(x, y, message=None, summarize=None, name=None):
    x, y = convert_pair(x, y)
    from .math import less_equal
    _assert_all("x <= y", less_equal(x, y), x, y, message, summarize)


_EPS = {"float16": 9.77e-4, "bfloat16": 7.81e-3, "float32": 1.19e-7, "float64": 2.22e-16}


@tf_export("debugging.assert_near")
def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """|x - y| <= atol + rtol * |y| elementwise (defaults: 10 * eps of the dtype, as TF)."""
    x, y = convert_pair(x, y)
    from .math import abs as _abs, less_equal
    eps = 10 * _EPS.get(x.dtype.name, 0.0)
    rtol = convert_pair(x, eps if rtol is None else rtol)[1]
    atol = convert_pair(x, eps if atol is None else atol)[1]
    tol = atol + rtol * _abs(y)
    _assert_all("x and y are close", less_equal(_abs(x - y), tol), x, y, message, summarize)


@tf_export("debugging.assert_rank", "assert_rank")
def assert_rank(x, rank, message=None, name=None):
    """Raise ValueError at once when the rank is known, else check when the graph runs."""
    x = convert_to_tensor(x)
    want = int(rank)
    have = x.shape.rank
    if have is not None:
        if have != want:
            raise ValueError(f"{message + ': ' if message else ''}Tensor must have rank {want}."
                             f" Received rank {have}, shape {x.shape}")
        return None
    from .array import rank as _rank
    from .math import equal
    apply("assert", (equal(_rank(x), want),), {"message": f"Tensor must have rank {want}",
                                               "summarize": 3})


# --- sign checks, shape checks, check_numerics ------------------------------------------
@tf_export("debugging.assert_positive")
def assert_positive(x, message=None, summarize=None, name=None):
    x = convert_to_tensor(x)
    from .math import greater
    _assert_all("x > 0", greater(x, convert_pair(x, 0)[1]), x, None, message, summarize)


@tf_export("debugging.assert_non_negative")
def assert_non_negative(x, message=None, summarize=None, name=None):
    x = convert_to_tensor(x)
    from .math import greater_equal
    _assert_all("x >= 0", greater_equal(x, convert_pair(x, 0)[1]), x, None, message,
                summarize)


def _shape_error(message, text):
    return ValueError(f"{message + '.  ' if message else ''}{text}")


@tf_export("debugging.assert_shapes")
def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Check `[(tensor, dims), ...]`: each dim an int or a symbol (a string) that must have
    one size across all tensors. Known dims are checked while tracing (ValueError, as TF);
    dims unknown at trace time become asserts that run with the graph."""
    pairs = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    bound = {}  # symbol -> (static size, the tensor and axis that fixed it)
    runtime = []  # (tensor, axis, size) checked when the graph runs
    for x, dims in pairs:
        x = convert_to_tensor(x)
        dims = tuple(dims)
        have = x.shape.as_list() if x.shape.rank is not None else None
        if have is not None and len(have) != len(dims):
            raise _shape_error(message, f"Tensor {_tensor_name(x)} must have rank "
                                        f"{len(dims)}.  Received rank {len(have)}, shape "
                                        f"{x.shape}")
        for axis, want in enumerate(dims):
            size = None if have is None else have[axis]
            origin = "Specified explicitly"
            if isinstance(want, str):
                if want not in bound:
                    if size is not None:
                        bound[want] = (size, x, axis)
                    continue
                want, by, by_axis = bound[want]
                origin = f"Specified by tensor {_describe(by)} dimension {by_axis}"
            elif not isinstance(want, int) or isinstance(want, bool):
                raise TypeError(f"assert_shapes: a dimension must be an int or a symbol "
                                f"string, got {want!r}")
            if size is None:
                runtime.append((x, axis, want))
            elif size != want:
                raise _shape_error(message, f"{origin}.  Tensor {_describe(x)} dimension "
                                            f"{axis} must have size {want}.  Received size "
                                            f"{size}, shape {x.shape}")
    if runtime:
        from .array import gather, shape
        from .math import equal
        for x, axis, want in runtime:
            apply("assert", (equal(gather(shape(x), axis), want),),
                  {"message": f"Tensor {_describe(x)} dimension {axis} must have size "
                              f"{want}", "summarize": 3})


def _tensor_name(x) -> str:
    return getattr(x, "name", None) or ""


def _describe(x) -> str:
    return f"shape={x.shape} dtype={x.dtype.name}"


_NUMERICS_DTYPES = ("bfloat16", "float16", "float32", "float64")


@tf_export("debugging.check_numerics")
def check_numerics(tensor, message, name=None):
    """`tensor` unchanged, after checking it holds no NaN or Inf (InvalidArgumentError
    "<message> : Tensor had NaN values", as TF). The gradient passes through unchanged."""
    x = convert_to_tensor(tensor)
    if x.dtype.name not in _NUMERICS_DTYPES:
        raise errors.InvalidArgumentError(
            None, "check_numerics", f"check_numerics: Value for attr 'T' of {x.dtype.name} is "
                                    f"not in the list of allowed values: "
                                    f"{', '.join(_NUMERICS_DTYPES)}")
    from .math import is_finite, is_nan, logical_and, logical_not
    from .reduce import reduce_any
    nan, inf = is_nan(x), logical_and(logical_not(is_finite(x)), logical_not(is_nan(x)))
    any_nan, any_inf = reduce_any(nan), reduce_any(inf)
    # One assert per verdict so the message names what was found, as TF's does.
    for bad, what in ((logical_and(any_inf, any_nan), "Inf and NaN"),
                      (logical_and(any_nan, logical_not(any_inf)), "NaN"),
                      (logical_and(any_inf, logical_not(any_nan)), "Inf")):
        apply("assert", (logical_not(bad),),
              {"message": f"{message} : Tensor had {what} values",
               "summarize": 3})
    return x


# --- more of tf.debugging: sign, dtype and rank checks -------------------------------------
@tf_export("debugging.assert_negative")
def assert_negative(x, message=None, summarize=None, name=None):
    x = convert_to_tensor(x)
    from .math import less
    _assert_all("x < 0", less(x, convert_pair(x, 0)[1]), x, None, message, summarize)


@tf_export("debugging.assert_non_positive")
def assert_non_positive(x, message=None, summarize=None, name=None):
    x = convert_to_tensor(x)
    from .math import less_equal
    _assert_all("x <= 0", less_equal(x, convert_pair(x, 0)[1]), x, None, message, summarize)


def _prefix(message):
    return f"{message}  " if message else ""


@tf_export("debugging.assert_integer")
def assert_integer(x, message=None, name=None):
    """TypeError unless `x` has an integer dtype (checked at once: dtypes are static)."""
    x = convert_to_tensor(x)
    if not x.dtype.is_integer:
        raise TypeError(f'{_prefix(message)}Expected "x" to be integer type.  Found: tensor '
                        f"of dtype <dtype: '{x.dtype.name}'>")


@tf_export("debugging.assert_type")
def assert_type(tensor, tf_type, message=None, name=None):
    """TypeError unless `tensor` has dtype `tf_type`."""
    from ...ir.dtypes import as_dtype
    x, want = convert_to_tensor(tensor), as_dtype(tf_type)
    if x.dtype is not want:
        raise TypeError(f"{_prefix(message)}tensor must be of type tf.{want.name}; got "
                        f"tf.{x.dtype.name}")


def _static_rank(x, message, what, ok):
    """ValueError when the rank is known and not `ok`; an assert when it runs otherwise."""
    x = convert_to_tensor(x)
    have = x.shape.rank
    if have is not None:
        if not ok(have):
            raise ValueError(f"{_prefix(message)}Tensor {_tensor_name(x)} must have {what}.  "
                             f"Received rank {have}, shape {tuple(x.shape.as_list())}")
        return
    raise NotImplementedError(f"{what}: the rank of the tensor is unknown while tracing")


@tf_export("debugging.assert_rank_at_least")
def assert_rank_at_least(x, rank, message=None, name=None):
    _static_rank(x, message, f"rank at least {int(rank)}", lambda r: r >= int(rank))


@tf_export("debugging.assert_rank_in")
def assert_rank_in(x, ranks, message=None, name=None):
    ranks = tuple(int(r) for r in ranks)
    _static_rank(x, message, f"rank in {ranks}", lambda r: r in ranks)


@tf_export("debugging.assert_scalar")
def assert_scalar(tensor, message=None, name=None):
    x = convert_to_tensor(tensor)
    if x.shape.rank is None or x.shape.rank != 0:
        raise ValueError(f"{_prefix(message)}Expected scalar shape, saw shape: "
                         f"{tuple(x.shape.as_list()) if x.shape.rank is not None else x.shape}.")


@tf_export("debugging.assert_all_finite")
def assert_all_finite(x, message, name=None):
    """`x` unchanged after check_numerics (InvalidArgumentError on NaN or Inf)."""
    return check_numerics(x, message)


@tf_export("debugging.is_numeric_tensor")
def is_numeric_tensor(tensor):
    """True for a tensor of a numeric dtype (not bool or string)."""
    return isinstance(tensor, Tensor) and (tensor.dtype.is_floating or tensor.dtype.is_integer
                                           or tensor.dtype.is_complex)
