"""TF-named reductions (`tf.reduce_sum`, `tf.math.argmax`, `tf.math.cumsum`, ...)."""
from __future__ import annotations

from ...ir import dtypes as D
from ...ir.errors import InvalidArgumentError
from ..eager.dispatch import apply, convert_to_tensor, op_error
from ..export import runs, tf_export
from . import array as _A
from . import math as _m
from .axes import axes_attr as _axes, axis_int as _int

_INF = float("inf")


def _reduction(opname, doc):
    def fn(input_tensor, axis=None, keepdims=False, name=None):
        if getattr(input_tensor, "_tf_composite", False):   # a RaggedTensor reduces itself
            return input_tensor._reduce(opname, axis, keepdims)
        x = convert_to_tensor(input_tensor)
        return apply(opname, (x,), {"axis": _axes(axis, opname), "keepdims": bool(keepdims)})
    fn.__name__ = opname
    fn.__doc__ = doc
    return runs(opname)(fn)


reduce_sum = tf_export("math.reduce_sum", "reduce_sum")(
    _reduction("reduce_sum", "Sum over `axis` (all axes when None); ints wrap."))
reduce_mean = tf_export("math.reduce_mean", "reduce_mean")(
    _reduction("reduce_mean", "Mean over `axis`; integer means truncate toward 0."))
reduce_prod = tf_export("math.reduce_prod", "reduce_prod")(
    _reduction("reduce_prod", "Product over `axis`; 1 for an empty axis."))
reduce_max = tf_export("math.reduce_max", "reduce_max")(
    _reduction("reduce_max", "Maximum over `axis`; NaN propagates; the lowest value "
               "(-inf for floats) for an empty axis."))
reduce_min = tf_export("math.reduce_min", "reduce_min")(
    _reduction("reduce_min", "Minimum over `axis`; NaN propagates; the highest value "
               "(+inf for floats) for an empty axis."))
reduce_any = tf_export("math.reduce_any", "reduce_any")(
    _reduction("reduce_any", "Logical OR over `axis` of a bool tensor."))
reduce_all = tf_export("math.reduce_all", "reduce_all")(
    _reduction("reduce_all", "Logical AND over `axis` of a bool tensor."))


@tf_export("math.reduce_logsumexp", "reduce_logsumexp")
def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log(sum(exp(x))) over `axis`, computed as max + log(sum(exp(x - max))) so large inputs
    do not overflow. An infinite max is not subtracted (inf - inf would be NaN); an empty
    axis gives -inf."""
    x = convert_to_tensor(input_tensor)
    if not x.dtype.is_floating:
        raise op_error("reduce_logsumexp", f"input must be a floating-point tensor, got "
                                           f"{x.dtype.name}", dtype_error=True)
    ax = _axes(axis, "reduce_logsumexp")
    raw_max = apply("reduce_max", (x,), {"axis": ax, "keepdims": True})
    shift = _m.where(_m.is_finite(raw_max), raw_max, convert_to_tensor(0, dtype=x.dtype))
    total = apply("reduce_sum", (_m.exp(_m.subtract(x, shift)),),
                  {"axis": ax, "keepdims": bool(keepdims)})
    if not keepdims:
        # Summing over the reduced axes (all of size 1) drops them without a reshape.
        shift = apply("reduce_sum", (shift,), {"axis": ax, "keepdims": False})
    return _m.add(_m.log(total), shift)


def _arg_reduction(opname, doc):
    def fn(input, axis=None, output_type=D.int64, name=None):  # noqa: A002  (TF's name)
        x = convert_to_tensor(input)
        if axis is None:
            axis = 0
        elif hasattr(axis, "numpy") and hasattr(axis, "dtype"):
            if not axis.dtype.is_integer or axis.shape.rank != 0:
                raise TypeError(f"{opname}: axis must be int or Tensor with integer datatype")
            axis = axis.numpy().tolist()
        elif isinstance(axis, (list, tuple)):
            raise TypeError(f"{opname}: axis must be int or Tensor with integer datatype, got "
                            f"{axis!r}")
        return apply(opname, (x,), {"axis": _int(axis, opname),
                                    "output_type": D.as_dtype(output_type)})
    fn.__name__ = opname
    fn.__doc__ = doc
    return runs(opname)(fn)


argmax = tf_export("math.argmax", "argmax")(
    _arg_reduction("argmax", "Index of the largest value along `axis` (0 when None); "
                   "ties give the first index and NaN is skipped."))
argmin = tf_export("math.argmin", "argmin")(
    _arg_reduction("argmin", "Index of the smallest value along `axis` (0 when None); "
                   "ties give the first index and NaN is skipped."))


def _scan(opname, doc):
    def fn(x, axis=0, exclusive=False, reverse=False, name=None):
        x = convert_to_tensor(x)
        if hasattr(axis, "numpy") and hasattr(axis, "dtype"):
            if not axis.dtype.is_integer or axis.shape.rank != 0:
                raise op_error(opname, f"axis must be a scalar integer, got {axis!r}")
            axis = axis.numpy().tolist()
        return apply(opname, (x,), {"axis": _int(axis, opname), "exclusive": bool(exclusive),
                                    "reverse": bool(reverse)})
    fn.__name__ = opname
    fn.__doc__ = doc
    return runs(opname)(fn)


cumsum = tf_export("math.cumsum", "cumsum")(
    _scan("cumsum", "Running sum along `axis`; `exclusive` starts from 0, `reverse` runs "
          "from the end."))
cumprod = tf_export("math.cumprod")(
    _scan("cumprod", "Running product along `axis`; `exclusive` starts from 1, "
          "`reverse` runs from the end."))

# --- variance, std, euclidean norm, tf.norm: compositions ----------------------------------
def _floating(x, opname):
    if not x.dtype.is_floating:
        raise TypeError(f"{opname}: Input must be either real or complex. Received integer "
                        f"type {x.dtype.name}")


@tf_export("math.reduce_variance")
def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """Mean squared deviation from the mean over `axis` (TF's composition: two means)."""
    x = convert_to_tensor(input_tensor)
    _floating(x, "reduce_variance")
    ax = _axes(axis, "reduce_variance")
    mean = apply("reduce_mean", (x,), {"axis": ax, "keepdims": True})
    return apply("reduce_mean", (_m.square(_m.subtract(x, mean)),),
                 {"axis": ax, "keepdims": bool(keepdims)})


@tf_export("math.reduce_std")
def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(reduce_variance) over `axis`."""
    x = convert_to_tensor(input_tensor)
    _floating(x, "reduce_std")
    return _m.sqrt(reduce_variance(x, axis, keepdims))


@tf_export("math.reduce_euclidean_norm")
def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(x**2)) over `axis`; integer inputs give the truncated root in their dtype."""
    x = convert_to_tensor(input_tensor)
    total = apply("reduce_sum", (_m.square(x),), {"axis": _axes(axis, "reduce_euclidean_norm"),
                                                  "keepdims": bool(keepdims)})
    if x.dtype.is_floating:
        return _m.sqrt(total)
    return _m.cast(_m.sqrt(_m.cast(total, D.float64)), x.dtype)


_MATRIX_ORDS = ("euclidean", "fro", 1, 2, _INF)


def _norm_axes(axis):
    """`axis` of tf.norm: None, one int (a vector norm) or two distinct ints (a matrix norm)."""
    if axis is None:
        return None
    ax = _axes(axis, "norm")
    if len(ax) > 2 or (len(ax) == 2 and ax[0] == ax[1]):
        raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, "
                         f"got {axis}")
    return ax


def _matrix_two_norm(x, ax, keep):
    """The largest singular value over the axis pair `ax`, as TF builds it: the pair moved
    last, svd's values, the max of their abs (whose gradient at a zero value is TF's 0)."""
    rank = x.shape.rank
    if rank is None:
        raise NotImplementedError(f"norm: the matrix 2-norm needs a tensor of known rank, "
                                  f"got {x!r}")
    # an axis out of range makes perm the wrong length, which transpose refuses (TF alike)
    pair = [a + rank if a < 0 else a for a in ax]
    perm = [i for i in range(rank) if i not in pair] + pair
    s = apply("svd", (_A.transpose(x, perm),), {"compute_uv": False, "full_matrices": False})[0]
    top = apply("reduce_max", (_m.abs(s),), {"axis": (-1,), "keepdims": False})
    if not keep:   # the other axes keep their order: the norm with the pair dropped
        return top
    kept = _A.expand_dims(_A.expand_dims(top, -1), -1)
    return _A.transpose(kept, [perm.index(i) for i in range(rank)])


@tf_export("linalg.norm", "norm")
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """Vector norms (`ord` 'euclidean', 1, inf or any p > 0) over one axis or the whole
    tensor, and matrix norms ('euclidean'/'fro', 1, 2, inf) over a pair of axes, as tf.norm."""
    x = convert_to_tensor(tensor)
    ax = _norm_axes(axis)
    keep = bool(keepdims)
    is_number = isinstance(ord, (int, float)) and not isinstance(ord, bool)
    if ax is not None and len(ax) == 2:
        if ord not in _MATRIX_ORDS or not (is_number or isinstance(ord, str)):
            raise ValueError(f"'ord' must be a supported matrix norm in ['euclidean', 'fro', "
                             f"1, 2, inf], got {ord}")
    elif not (ord == "euclidean" or (is_number and ord > 0)):
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    if not x.dtype.is_floating:
        raise InvalidArgumentError(None, "norm", f"norm: input must be a floating-point tensor, "
                                                 f"got {x.dtype.name}")
    if ord == 2 and ax is not None and len(ax) == 2:
        return _matrix_two_norm(x, ax, keep)
    if ord in ("euclidean", "fro") or ord == 2:
        return _m.sqrt(apply("reduce_sum", (_m.square(x),), {"axis": ax, "keepdims": keep}))
    a = _m.abs(x)
    if ax is not None and len(ax) == 2:
        # ord 1: the largest column sum (sum over rows first); inf: the largest row sum.
        inner, outer = (ax[0], ax[1]) if ord == 1 else (ax[1], ax[0])
        sums = apply("reduce_sum", (a,), {"axis": (inner,), "keepdims": True})
        out = apply("reduce_max", (sums,), {"axis": (outer,), "keepdims": True})
        return out if keep else apply("reduce_sum", (out,), {"axis": ax, "keepdims": False})
    if ord == _INF:
        return apply("reduce_max", (a,), {"axis": ax, "keepdims": keep})
    if ord == 1:
        return apply("reduce_sum", (a,), {"axis": ax, "keepdims": keep})
    p = convert_to_tensor(float(ord), dtype=x.dtype)
    total = apply("reduce_sum", (_m.pow(a, p),), {"axis": ax, "keepdims": keep})
    return _m.pow(total, _m.reciprocal(p))


