"""NumPy kernels: array family.

Kernels re-check what depends on concrete sizes (shapes may have been unknown when a graph was
built) and raise InvalidArgumentError for bad values. Results may be NumPy views of the
inputs: tensors are immutable, so sharing memory is safe.
"""
from __future__ import annotations

from math import prod

import numpy as np

from ...ir import dtypes as D
from ...ir.errors import InvalidArgumentError
from ...ir.ops.array import (NEW_AXIS, gather_axes, range_size, slice_bounds, split_sizes,
                             squeeze_axes, strided_slice_plan)
from ...ir.registry import OPS, TT, InferenceError
from ...ir.shapes import format_shape
from . import kernel


def _invalid(message: str):
    return InvalidArgumentError(None, None, message)


def _infer(opname, arrays, attrs):
    """The op's inference on concrete shapes; InferenceError becomes InvalidArgumentError."""
    try:
        return OPS[opname].infer([TT(D.from_numpy(a.dtype), tuple(a.shape)) for a in arrays],
                                 attrs)
    except InferenceError as e:
        raise _invalid(str(e)) from None


def _guarded(opname):
    """For kernels whose NumPy call rejects exactly the inputs the op's inference rejects:
    the happy path pays nothing, and a NumPy error (shapes were unknown when the graph was
    built) is reported with the inference's TF message."""
    def deco(fn):
        def run(*arrays, **attrs):
            try:
                return fn(*arrays, **attrs)
            except (ValueError, IndexError) as e:  # NumPy's AxisError is both
                _infer(opname, arrays, attrs)
                raise _invalid(str(e)) from None
        run.__name__ = fn.__name__
        run.__doc__ = fn.__doc__
        return run
    return deco


def _checked(fn, *args):
    try:
        return fn(*args)
    except InferenceError as e:
        raise _invalid(str(e)) from None


@kernel("const")
def const(*, value, dtype):
    return value


@kernel("identity", "stop_gradient")
def identity(x):
    return x


@kernel("reshape")
def reshape(x, shape):
    return np.reshape(x, _infer("reshape", [x], {"shape": shape}).shape)


@kernel("transpose")
@_guarded("transpose")
def transpose(x, perm):
    return np.transpose(x, perm)


@kernel("expand_dims")
@_guarded("expand_dims")
def expand_dims(x, axis):
    return np.expand_dims(x, axis)


@kernel("squeeze")
@_guarded("squeeze")
def squeeze(x, axis):
    return np.squeeze(x, axis=squeeze_axes(x.shape, axis))


@kernel("broadcast_to")
@_guarded("broadcast_to")
def broadcast_to(x, shape):
    if min(shape, default=0) < 0:
        raise ValueError("negative dimension")
    return np.broadcast_to(x, shape)


@kernel("fill_like")
def fill_like(x, value):
    return np.full(np.shape(x), value, dtype=value.dtype)


@kernel("concat")
@_guarded("concat")
def concat(*xs, axis):
    if xs[0].ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    return np.concatenate(xs, axis=axis)


@kernel("split")
def split(x, num_split, sizes, axis):
    rank = x.ndim
    if not -rank <= axis < rank:
        _infer("split", [x], {"num_split": num_split, "sizes": sizes, "axis": axis})
    axis %= rank
    parts = _checked(split_sizes, x.shape[axis], num_split, sizes, axis)
    pieces = np.split(x, np.cumsum(parts)[:-1], axis=axis)
    # One output is a plain result, as dispatch expects of single-output calls.
    return pieces[0] if len(pieces) == 1 else tuple(pieces)


@kernel("tile")
def tile(x, multiples):
    if len(multiples) != x.ndim or min(multiples, default=0) < 0:
        _infer("tile", [x], {"multiples": multiples})
    if not multiples:
        return x
    return np.tile(x, multiples)


_NP_PAD_MODE = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}


@kernel("pad")
def pad(x, constant_values, paddings, mode):
    if mode != "CONSTANT" or len(paddings) != 2 * x.ndim or min(paddings, default=0) < 0:
        _infer("pad", [x, constant_values], {"paddings": paddings, "mode": mode})
    if x.ndim == 0:
        return x
    pairs = [(paddings[2 * i], paddings[2 * i + 1]) for i in range(x.ndim)]
    if mode == "CONSTANT":
        return np.pad(x, pairs, mode="constant", constant_values=constant_values)
    return np.pad(x, pairs, mode=_NP_PAD_MODE[mode])


@kernel("reverse")
def reverse(x, axis):
    if len(axis) > 1 or (axis and not -x.ndim <= axis[0] < x.ndim):
        _infer("reverse", [x], {"axis": axis})
    if not axis:
        return x
    return np.flip(x, axis=tuple(a % x.ndim for a in axis))


@kernel("slice")
def slice_(x, begin, size):
    _infer("slice", [x], {"begin": begin, "size": size})
    begins, sizes = slice_bounds(x.shape, begin, size)
    return x[tuple(slice(b, b + s) for b, s in zip(begins, sizes))]


def _np_index(entry):
    if entry is NEW_AXIS:
        return None
    if isinstance(entry, int):
        return entry
    b, size, s = entry
    if size == 0:
        return slice(0, 0, 1)
    stop = b + size * s
    return slice(b, stop if stop >= 0 else None, s)


@kernel("strided_slice")
def strided_slice(x, **masks):
    index, _ = _checked(lambda: strided_slice_plan(x.shape, **masks))
    return _array(x[tuple(_np_index(e) for e in index)])


def _array(element_or_array):
    """NumPy indexes an object array down to the bare element; a string scalar stays a 0-d
    array (numbers come back as NumPy scalars, which are arrays enough)."""
    if element_or_array.__class__ is bytes:
        return np.array(element_or_array, dtype=object)
    return element_or_array


# --- gather and scatter -------------------------------------------------------------------
def _first_bad(bad):
    """The multi-index of the first True in `bad`, formatted as TF prints it."""
    pos = tuple(int(i) for i in np.argwhere(bad)[0])
    return pos, ",".join(map(str, pos))


@kernel("gather")
def gather(params, indices, axis, batch_dims):
    axis, bd = _checked(gather_axes, params.ndim, indices.ndim, axis, batch_dims)
    n = params.shape[axis]
    bad = (indices < 0) | (indices >= n)
    if np.any(bad):
        if np.ndim(bad) == 0:
            raise _invalid(f"indices = {indices} is not in [0, {n})")
        pos, txt = _first_bad(bad)
        raise _invalid(f"indices[{txt}] = {indices[pos]} is not in [0, {n})")
    if bd == 0:
        return _array(np.take(params, indices, axis=axis))
    _infer("gather", [params, indices], {"axis": axis, "batch_dims": bd})
    # Flatten the batch dims to one, gather with a batch coordinate, restore the layout.
    batch = params.shape[:bd]
    pre, post = params.shape[bd:axis], params.shape[axis + 1:]
    ishape = indices.shape[bd:]
    b = prod(batch)
    p = np.moveaxis(params.reshape((b,) + pre + (n,) + post), 1 + len(pre), 1)
    bi = np.arange(b).reshape((b,) + (1,) * len(ishape))
    g = p[bi, indices.reshape((b,) + ishape)]  # (b, *ishape, *pre, *post)
    ni, npre = len(ishape), len(pre)
    perm = ((0,) + tuple(range(1 + ni, 1 + ni + npre)) + tuple(range(1, 1 + ni))
            + tuple(range(1 + ni + npre, g.ndim)))
    return g.transpose(perm).reshape(batch + pre + ishape + post)


@kernel("gather_nd")
def gather_nd(params, indices, batch_dims):
    _infer("gather_nd", [params, indices], {"batch_dims": batch_dims})
    bd = batch_dims
    k = indices.shape[-1]
    batch, rest = params.shape[:bd], params.shape[bd:]
    mid = indices.shape[bd:-1]
    b = prod(batch)
    p = params.reshape((b,) + rest)
    idx = indices.reshape((b,) + mid + (k,)).astype(np.int64)
    bad = np.any((idx < 0) | (idx >= np.array(rest[:k], dtype=np.int64)), axis=-1)
    if np.any(bad):
        flat = int(np.flatnonzero(bad)[0])
        row = idx.reshape(-1, k)[flat].tolist()
        raise _invalid(f"indices[{flat}] = {row} does not index into param shape "
                       f"{format_shape(params.shape)}")
    bi = np.arange(b).reshape((b,) + (1,) * len(mid))
    if k == 0:
        out = np.broadcast_to(p.reshape((b,) + (1,) * len(mid) + rest), (b,) + mid + rest)
    else:
        out = p[(bi,) + tuple(idx[..., j] for j in range(k))]
    return np.array(out.reshape(batch + mid + rest[k:]))


def _scatter_into(out, indices, updates, mode):
    """Write (`update`), add (`add`) or combine (`min`, `max`) `updates` into `out` (a fresh
    C-contiguous array)."""
    k = indices.shape[-1]
    want = indices.shape[:-1] + out.shape[k:]
    if updates.shape != want:
        raise _invalid(f"updates must have shape {format_shape(want)}, got "
                       f"{format_shape(updates.shape)}")
    n = prod(indices.shape[:-1])
    idx = indices.reshape(n, k).astype(np.int64)
    if n == 0 or out.size == 0:
        return out
    bad = np.any((idx < 0) | (idx >= np.array(out.shape[:k], dtype=np.int64)), axis=1)
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise _invalid(f"indices[{i}] = {idx[i].tolist()} does not index into shape "
                       f"{format_shape(out.shape)}")
    upd = updates.reshape((n,) + out.shape[k:])
    rows = out.reshape((-1,) + out.shape[k:])  # a view: `out` is contiguous
    flat = np.ravel_multi_index(tuple(idx.T), out.shape[:k]) if k else np.zeros(n, np.intp)
    if mode == "update":
        rows[flat] = upd  # NumPy keeps the last of duplicate indices
    elif mode in _EXTREME_UFUNCS:
        _EXTREME_UFUNCS[mode].at(rows, flat, upd)
    elif out.dtype == np.bool_:
        np.logical_or.at(rows, flat, upd)
    else:
        np.add.at(rows, flat, upd)
    return out


_EXTREME_UFUNCS = {"min": np.minimum, "max": np.maximum}


@kernel("scatter_nd")
def scatter_nd(indices, updates, shape):
    _infer("scatter_nd", [indices, updates], {"shape": shape})
    return _scatter_into(np.zeros(shape, dtype=updates.dtype), indices, updates, "add")


@kernel("tensor_scatter_nd_update")
def tensor_scatter_nd_update(tensor, indices, updates):
    _infer("tensor_scatter_nd_update", [tensor, indices, updates], {})
    return _scatter_into(np.array(tensor, order="C"), indices, updates, "update")


@kernel("tensor_scatter_nd_add")
def tensor_scatter_nd_add(tensor, indices, updates):
    _infer("tensor_scatter_nd_add", [tensor, indices, updates], {})
    return _scatter_into(np.array(tensor, order="C"), indices, updates, "add")


@kernel("where_indices")
def where_indices(condition):
    if condition.ndim == 0:
        raise _invalid("WhereOp : Unhandled input dimensions: 0")
    return np.argwhere(np.asarray(condition) != 0).astype(np.int64)


# --- generators, shape queries, sorting ---------------------------------------------------
@kernel("range")
def range_(*, start, limit, delta, dtype):
    dt = D.as_dtype(dtype)
    n = _checked(range_size, start, limit, delta, dt)
    if dt.is_integer:
        return (np.arange(n, dtype=np.int64) * int(delta) + int(start)).astype(dt.np)
    t = dt.np.type
    start, delta = float(t(start)), float(t(delta))
    return (start + np.arange(n, dtype=np.float64) * delta).astype(dt.np)


@kernel("shape")
def shape(x, out_type):
    return np.array(np.shape(x), dtype=D.as_dtype(out_type).np)


@kernel("size")
def size(x, out_type):
    return np.array(np.size(x), dtype=D.as_dtype(out_type).np)


@kernel("sort")
@_guarded("sort")
def sort(values, axis, descending):
    if values.dtype == D.bfloat16.np:
        out = np.take_along_axis(values, _argsort_keys(values, axis), axis)
    else:
        out = np.sort(values, axis=axis, kind="stable")  # NaN last
    return np.flip(out, axis) if descending else out


def _argsort_keys(values, axis):
    """np.argsort (stable, NaN last). ml_dtypes' bfloat16 sort mis-orders NaN, so bfloat16
    sorts by its exact float32 values."""
    if values.dtype == D.bfloat16.np:
        values = values.astype(np.float32)
    return np.argsort(values, axis=axis, kind="stable")


@kernel("argsort")
@_guarded("argsort")
def argsort(values, axis, descending, stable):
    if not descending:
        return _argsort_keys(values, axis).astype(np.int32)
    # Descending but ties in original order: sort the reversed array ascending (stable),
    # reverse the result and map positions back.
    n = values.shape[axis]
    rev = _argsort_keys(np.flip(values, axis), axis)
    return (n - 1 - np.flip(rev, axis)).astype(np.int32)
