"""TF-named counting and searching: `tf.unique`, `tf.unique_with_counts`,
`tf.math.bincount`, `tf.searchsorted`, and `tf.histogram_fixed_width` (a composition: bins
computed elementwise as TF's kernel does, then counted with unsorted_segment_sum, so it also
runs under XLA, which TF's does not)."""
from __future__ import annotations

import collections
import operator

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ..eager.dispatch import apply, convert_pair, convert_to_tensor
from ..export import tf_export
from . import math as _m

Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


@tf_export("unique")
def unique(x, out_idx=D.int32, name=None):
    """The distinct values of the 1-D `x` in order of first appearance, and for each element
    its index among them."""
    return Unique(*apply("unique", (convert_to_tensor(x),), {"out_idx": D.as_dtype(out_idx)}))


@tf_export("unique_with_counts")
def unique_with_counts(x, out_idx=D.int32, name=None):
    """`unique` plus how many times each distinct value occurs."""
    return UniqueWithCounts(*apply("unique_with_counts", (convert_to_tensor(x),),
                                   {"out_idx": D.as_dtype(out_idx)}))


def _length(v, what):
    if v is None:
        return None
    if hasattr(v, "numpy") and hasattr(v, "dtype"):
        v = v.numpy()
    try:
        return operator.index(v.item() if hasattr(v, "item") else v)
    except TypeError:
        raise TypeError(f"bincount: {what} must be an integer known while tracing, "
                        f"got {v!r}") from None


@tf_export("math.bincount")
def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=D.int32, name=None,
             axis=None, binary_output=False):
    """How often each value in [0, length) occurs in `arr` (summed `weights` instead when
    given), length = max(arr) + 1, at least `minlength`, at most `maxlength`. `axis=-1`
    counts each row of a 2-D `arr` separately. The length depends on the values unless
    minlength == maxlength, so only that form compiles under XLA."""
    arr = convert_to_tensor(arr)
    if arr.dtype not in (D.int32, D.int64):
        arr = _m.cast(arr, D.int32)
    if weights is not None and binary_output:
        raise ValueError("bincount: Arguments `binary_output` and `weights` are mutually "
                         "exclusive. Please specify only one.")
    if axis not in (None, 0, -1):
        raise ValueError(f"bincount: Unsupported value for argument axis={axis}. Only 0 and "
                         f"-1 are currently supported.")
    w = convert_to_tensor(1, dtype=D.as_dtype(dtype)) if weights is None \
        else convert_to_tensor(weights)
    lo, hi = _length(minlength, "minlength"), _length(maxlength, "maxlength")
    return apply("bincount", (arr, w), {"minlength": lo or 0, "maxlength": -1 if hi is None
                                        else hi, "per_row": axis == -1,
                                        "binary_output": bool(binary_output)})


@tf_export("searchsorted")
def searchsorted(sorted_sequence, values, side="left", out_type=D.int32, name=None):
    """Insertion points of `values` in the rows of `sorted_sequence` (same leading dims):
    before equal entries for side "left", after them for "right"."""
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: "
                         f"`side` = '{side}'.")
    seq, vals = convert_pair(sorted_sequence, values)
    return apply("searchsorted", (seq, vals), {"side": side,
                                               "out_type": D.as_dtype(out_type)})


@tf_export("histogram_fixed_width")
def histogram_fixed_width(values, value_range, nbins=100, dtype=D.int32, name=None):
    """Counts of `values` in `nbins` equal bins spanning `value_range` = [lo, hi]; values
    below lo count in the first bin, values at or above hi in the last (TF's kernel rule:
    bin = min(floor((max(v, lo) - lo) / step), nbins - 1), step = (hi - lo) / nbins, in
    float64)."""
    v = convert_to_tensor(values)
    rng = convert_to_tensor(value_range, dtype=v.dtype)
    n = _length(nbins, "nbins")
    if n <= 0:
        raise errors.InvalidArgumentError(None, "histogram_fixed_width",
                                          f"nbins should be a positive number, but got '{n}'")
    _check_concrete(v, rng)
    from .array import gather, ones_like, reshape
    from .segment import unsorted_segment_sum
    lo, hi = gather(rng, 0), gather(rng, 1)
    step = _m.truediv(_m.cast(_m.subtract(hi, lo), D.float64), float(n))
    shifted = _m.cast(_m.subtract(_m.maximum(v, lo), lo), D.float64)
    bins = _m.cast(_m.minimum(_m.truediv(shifted, step), float(n - 1)), D.int32)
    flat = reshape(bins, [-1])
    return unsorted_segment_sum(ones_like(flat, dtype=D.as_dtype(dtype)), flat, n)


def _check_concrete(v, rng):
    """TF's checks of the range and the values, where their values are known now (eager
    tensors; inside a traced function they are not checked)."""
    if rng._value is not None:
        r = np.asarray(rng._value)
        if r.shape == (2,) and not r[0] < r[1]:
            raise errors.InvalidArgumentError(
                None, "histogram_fixed_width", f"value_range should satisfy value_range[0] < "
                f"value_range[1], but got '[{r[0]:g}, {r[1]:g}]'")
    if v._value is not None and v.dtype.is_floating \
            and np.isnan(np.asarray(v._value, np.float64)).any():
        raise errors.InvalidArgumentError(None, "histogram_fixed_width",
                                          "Histogram values must not contain NaN")


