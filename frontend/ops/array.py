"""TF-named API: array family (`tf.reshape`, `tf.concat`, `tf.gather`, `tensor[...]`, ...).

Shape-like arguments (reshape's `shape`, slice bounds, `tf.range` bounds, paddings, axes) become
op attributes, so results keep static shapes. They may be Python values, NumPy values, or
tensors. Where TF takes a tensor (shapes, sizes, begins, multiples, paddings, range bounds), a
tensor computed in the graph is partially evaluated (`frontend.shape_args`) and what stays
unknown is fed at run time; axes must be known while the op is built.

Several TF ops are compositions of primitives here: `stack` (expand_dims + concat),
`unstack` (split + squeeze), `one_hot` (range + equal + select), `fill`/`zeros`/`ones`
(broadcast_to), `linspace`, `eye`, `rank`.
"""
from __future__ import annotations

import builtins
import numbers

from ...ir import dtypes as D
from ...ir import errors
from ...ir.ops.array import PAD_MODES
from ...ir.registry import TT, InferenceError, check_size
from ...ir.shapes import TensorShape, format_shape
from ..eager import dispatch
from ..eager.dispatch import _is_tensor_like, _nested_has_tensor, apply, convert_to_tensor, op_error
from ..export import runs, tf_export
from ..eager.shape_args import apply_tensor_attrs, is_tensor_arg, tensor_arg, traced_value
from . import math as _m

# `range` and `slice` are TF API names in this module; Python's stay reachable here.
_pyrange = builtins.range
_pyslice = builtins.slice

newaxis = tf_export("newaxis")(None)

_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                     "scalar tf.int32/tf.int64 tensors are valid indices")
_SLICE_INDEX_DTYPES = (D.int16, D.int32, D.int64)


# --- reading Python-level arguments -------------------------------------------------------
def _error(cls, opname, message):
    """An exception of `cls` whose message names the op (TF's error classes take
    (node_def, op, message))."""
    if issubclass(cls, errors.OpError):
        return cls(None, opname, f"{opname}: {message}")
    return cls(f"{opname}: {message}")


def _invalid(opname, message, dtype_error=False):
    return op_error(opname, message, dtype_error)


def _known_value(t, opname, what):
    """The value of a tensor argument that must be known while the op is built (an axis, a
    count): eager tensors, constants, and graph arithmetic on static shapes. Returns a Python
    scalar/list."""
    if t._value is not None:
        return t.numpy().tolist()
    v = traced_value(t) if t.dtype.is_integer else None
    if v is not None and not (isinstance(v, tuple) and None in v):
        return list(v) if isinstance(v, tuple) else v
    raise NotImplementedError(
        f"{opname}: `{what}` must be known when the op is built (a Python value, a constant, "
        f"an eager tensor or arithmetic on static shapes); it depends on values computed in "
        f"the graph: {t!r}")


def _as_python(value, opname, what):
    """Tensors and NumPy values as (nested) Python values; others unchanged."""
    if isinstance(value, TensorShape):
        if not value.is_fully_defined():
            raise ValueError(f"{opname}: Cannot convert a partially known TensorShape {value} "
                             f"to a Tensor.")
        return value.as_list()
    if _is_tensor_like(value):
        t = convert_to_tensor(value)
        if not t.dtype.is_integer:
            raise _invalid(opname, f"`{what}` must be an integer tensor, got {t.dtype.name}",
                           dtype_error=True)
        return _known_value(t, opname, what)
    if hasattr(value, "tolist") and hasattr(value, "dtype"):  # NumPy arrays and scalars
        return value.tolist()
    return value


def _int_or_fail(v, opname, what, err):
    if _is_tensor_like(v):
        v = _as_python(v, opname, what)
    elif hasattr(v, "tolist") and hasattr(v, "dtype"):
        v = v.tolist()
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise _error(err, opname, f"`{what}` must hold integers, got {v!r}")
    if not -2**63 <= v < 2**63:
        raise _error(ValueError, opname, f"`{what}`: Can't convert Python sequence with "
                     f"out-of-range integer to Tensor, got {v!r}")
    return int(v)


def _ints(value, opname, what, err=errors.InvalidArgumentError):
    """A 1-D shape-like argument as a tuple of ints (a scalar counts as one element)."""
    v = _as_python(value, opname, what)
    if not isinstance(v, (list, tuple)):
        return (_int_or_fail(v, opname, what, err),)
    out = []
    for x in v:
        if isinstance(x, (list, tuple)):
            raise _invalid(opname, f"`{what}` must be 1-D, got {value!r}")
        out.append(_int_or_fail(x, opname, what, err))
    return tuple(out)


def _int(value, opname, what, err=TypeError):
    """A scalar integer argument (an axis, a count)."""
    v = _as_python(value, opname, what)
    if isinstance(v, (list, tuple)):
        raise _error(err, opname, f"`{what}` must be a scalar integer, got {value!r}")
    return _int_or_fail(v, opname, what, err)


def _shape_attr(value, opname, what, err=errors.InvalidArgumentError, any_length=False):
    """(static tuple, run-time operand or None) of a 1-D argument TF takes as a tensor; with
    `any_length` the static value is None when even its length is unknown while tracing."""
    if type(value) in (list, tuple) and all(type(v) is int for v in value):
        return tuple(value), None  # the common case, first
    if is_tensor_arg(value):
        return tensor_arg(value, opname, what, any_length=any_length)
    return _ints(value, opname, what, err), None


def _refuse_huge(opname, dtype, shape):
    """A composite op checks its result's size before building the (large) intermediates;
    a primitive op gets the same check from its inference."""
    try:
        check_size(TT(D.as_dtype(dtype), tuple(shape)))
    except InferenceError as e:
        raise _error(e.error_class, opname, f"{e}") from None


def _nonneg_dims(dims, opname):
    for d in dims or ():
        if d is not None and d < 0:
            raise _invalid(opname, f"Dimension {d} must be >= 0")
    return dims


def _static_rank(t, opname):
    r = t.shape.rank
    if r is None:
        raise NotImplementedError(f"{opname}: needs a tensor of known rank, got {t!r}")
    return r


def _outputs(res):
    return list(res) if isinstance(res, tuple) else [res]


def _first_tensor_dtype(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            dt = _first_tensor_dtype(v)
            if dt is not None:
                return dt
        return None
    return convert_to_tensor(value).dtype if _is_tensor_like(value) else None


def _convert_like(values, dtype=None):
    """TF's conversion of an op's list argument: Python elements take `dtype`, else the first
    tensor's dtype (else the first element's); tensors keep theirs (the op checks)."""
    if dtype is None:
        dtype = _first_tensor_dtype(values)
    out = []
    for v in values:
        if _is_tensor_like(v):
            out.append(convert_to_tensor(v))
        elif isinstance(v, (list, tuple)) and _nested_has_tensor(v):
            out.append(autopack(v, dtype))
        else:
            out.append(convert_to_tensor(v, dtype=dtype))
        if dtype is None:
            dtype = out[-1].dtype
    return out


def autopack(value, dtype=None, dtype_hint=None):
    """Convert a nested list that holds tensors, as TF does: every Python element takes
    `dtype`, else the first tensor's dtype, and each level is stacked along axis 0."""
    if dtype is None:
        dtype = _first_tensor_dtype(value)
    if dtype is None and dtype_hint is not None:
        dtype = D.as_dtype(dtype_hint)
    return stack(value if isinstance(value, list) else list(value), 0, _dtype=dtype)


dispatch.LIST_PACKER[0] = autopack


# --- constants, identity ------------------------------------------------------------------
@tf_export("constant")
@runs("const")
def constant(value, dtype=None, shape=None, name="Const"):
    """A constant tensor from a Python/NumPy value. With `shape`, a value with that many
    elements is reshaped and a one-element value is broadcast, as in TF."""
    if _is_tensor_like(value):
        t = convert_to_tensor(value)
        if dtype is not None and D.as_dtype(dtype) is not t.dtype:
            raise TypeError(f"Expected tensor {value!r} with dtype {D.as_dtype(dtype)!r}, but "
                            f"got dtype {t.dtype!r}.")
    else:
        t = convert_to_tensor(value, dtype=dtype)
    if shape is None:
        return t
    dims = _ints(shape, "constant", "shape", TypeError)
    for d in dims:
        if d < 0:
            raise ValueError(f"constant: Dimension {d} must be >= 0")
    want = 1
    for d in dims:
        want *= d
    have = t.shape.num_elements()
    if have == want:
        return reshape(t, dims)
    if have == 1:
        return broadcast_to(reshape(t, ()), dims)
    raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {value!r} "
                    f"has {have} elements, but got `shape` {tuple(dims)} with {want} "
                    f"elements).")


@tf_export("identity")
def identity(input, name=None):  # noqa: A002  (TF's argument name)
    """The input, unchanged."""
    return apply("identity", (convert_to_tensor(input),))


@tf_export("stop_gradient")
def stop_gradient(input, name=None):  # noqa: A002
    """The input, unchanged; gradients do not flow through it."""
    return apply("stop_gradient", (convert_to_tensor(input),))


# --- reshaping ----------------------------------------------------------------------------
@tf_export("reshape")
def reshape(tensor, shape, name=None):
    """`tensor` with the given shape; one dim may be -1 (inferred)."""
    t = convert_to_tensor(tensor)
    dims, dyn = _shape_attr(shape, "reshape", "shape", any_length=True)
    return apply_tensor_attrs("reshape", (t,), {"shape": dims}, {"shape": dyn})


@tf_export("transpose")
def transpose(a, perm=None, conjugate=False, name="transpose"):
    """Permute dims (default: reverse them). `conjugate` is a no-op: there are no complex
    dtypes."""
    t = convert_to_tensor(a)
    if perm is None:
        perm = tuple(_pyrange(_static_rank(t, "transpose") - 1, -1, -1))
    else:
        perm = _ints(perm, "transpose", "perm")
    return apply("transpose", (t,), {"perm": perm})


@tf_export("expand_dims")
def expand_dims(input, axis, name=None):  # noqa: A002
    """Insert a size-1 dim at `axis` (in [-rank-1, rank])."""
    t = convert_to_tensor(input)
    ax = _as_python(axis, "expand_dims", "axis")
    if isinstance(ax, (list, tuple)):
        if len(ax) != 1:
            raise _invalid("expand_dims", f"'dim' must be a tensor with a single value, got "
                                          f"{axis!r}")
        ax = ax[0]
    ax = _int_or_fail(ax, "expand_dims", "axis", TypeError)
    return apply("expand_dims", (t,), {"axis": ax})


@tf_export("squeeze")
def squeeze(input, axis=None, name=None):  # noqa: A002
    """Remove size-1 dims: those in `axis`, or all of them."""
    t = convert_to_tensor(input)
    axes = () if axis is None else _ints(axis, "squeeze", "axis", TypeError)
    return apply("squeeze", (t,), {"axis": axes})


@tf_export("broadcast_to")
def broadcast_to(input, shape, name=None):  # noqa: A002
    """`input` broadcast (NumPy rules) to `shape`."""
    t = convert_to_tensor(input)
    dims, dyn = _shape_attr(shape, "broadcast_to", "shape", any_length=True)
    return apply_tensor_attrs("broadcast_to", (t,), {"shape": dims}, {"shape": dyn})


# --- joining and splitting ----------------------------------------------------------------
@tf_export("concat")
def concat(values, axis, name="concat"):
    """Join tensors along an existing axis."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    ts = _convert_like(list(values))
    ax = _int(axis, "concat", "axis")
    if not ts:
        raise _invalid("concat", "needs at least one tensor to concatenate")
    if len(ts) == 1:
        return identity(ts[0])
    return apply("concat", tuple(ts), {"axis": ax})


@tf_export("stack")
def stack(values, axis=0, name="stack", _dtype=None):
    """Join same-shaped tensors along a new axis (`axis` in [-rank-1, rank])."""
    if _is_tensor_like(values):
        t = convert_to_tensor(values)
        if axis == 0:
            return t
        values = unstack(t)
    values = list(values)
    ax = _int(axis, "stack", "axis")
    if not _nested_has_tensor(values):
        t = convert_to_tensor(values, dtype=_dtype)
        r = _static_rank(t, "stack") - 1
        if not -(r + 1) <= ax < r + 1:
            raise ValueError(f"stack: Argument `axis` = {ax} not in range [{-(r + 1)}, {r + 1})")
        ax %= r + 1
        if ax == 0:
            return t
        perm = tuple(_pyrange(1, ax + 1)) + (0,) + tuple(_pyrange(ax + 1, r + 1))
        return apply("transpose", (t,), {"perm": perm})
    ts = _convert_like(values, _dtype)
    first = ts[0].shape
    r = _static_rank(ts[0], "stack")
    if not -(r + 1) <= ax < r + 1:
        raise ValueError(f"stack: Argument `axis` = {ax} not in range [{-(r + 1)}, {r + 1})")
    ax %= r + 1
    for i, t in enumerate(ts[1:], 1):
        if t.dtype is not ts[0].dtype:
            raise _invalid("stack", f"cannot compute stack as input #{i}(zero-based) was "
                                    f"expected to be a {ts[0].dtype.name} tensor but is a "
                                    f"{t.dtype.name} tensor", dtype_error=True)
        if not t.shape.is_compatible_with(first):
            raise _invalid("stack", f"Shapes of all inputs must match: values[0].shape = "
                                    f"{format_shape(first.as_tuple())} != values[{i}].shape = "
                                    f"{format_shape(t.shape.as_tuple())}")
    parts = tuple(apply("expand_dims", (t,), {"axis": ax}) for t in ts)
    if len(parts) == 1:
        return parts[0]
    return apply("concat", parts, {"axis": ax})


@tf_export("unstack")
def unstack(value, num=None, axis=0, name="unstack"):
    """The slices of `value` along `axis`, as a list of tensors of one rank less."""
    t = convert_to_tensor(value)
    r = _static_rank(t, "unstack")
    ax = _int(axis, "unstack", "axis")
    if not -r <= ax < r:
        raise ValueError(f"unstack: Argument `axis` = {ax} not in range [{-r}, {r})")
    ax %= r
    dim = t.shape[ax]
    if num is None:
        if dim is None:
            raise ValueError(f"unstack: Cannot infer argument `num` from shape {t.shape}")
        num = dim
    num = _int(num, "unstack", "num")
    if dim is not None and dim != num:
        raise _invalid("unstack", f"Input shape axis {ax} must equal {num}, got shape "
                                  f"{format_shape(t.shape.as_tuple())}")
    if num == 0:
        return []
    parts = _outputs(apply("split", (t,), {"num_split": num, "sizes": (), "axis": ax}))
    return [apply("squeeze", (p,), {"axis": (ax,)}) for p in parts]


@tf_export("split")
def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Split along `axis` into `num_or_size_splits` equal pieces, or pieces of the given sizes
    (one size may be -1: the rest). Returns a list."""
    t = convert_to_tensor(value)
    ax = _int(axis, "split", "axis")
    n = num_or_size_splits
    if isinstance(n, numbers.Integral) and not isinstance(n, bool):
        attrs = {"num_split": int(n), "sizes": (), "axis": ax}
    else:
        if (_is_tensor_like(n) and convert_to_tensor(n).shape.rank == 0) or \
                isinstance(n, numbers.Number):
            raise ValueError(f"split: Rank-0 tensors are not supported as the "
                             f"num_or_size_splits argument to split. Argument provided: {n!r}")
        sizes, dyn = _shape_attr(n, "split", "num_or_size_splits")
        if num is not None and _int(num, "split", "num") != len(sizes):
            raise _invalid("split", f"num={num} does not match the {len(sizes)} sizes given")
        attrs = {"num_split": len(sizes), "sizes": sizes, "axis": ax}
        return _outputs(apply_tensor_attrs("split", (t,), attrs, {"sizes": dyn}))
    return _outputs(apply("split", (t,), attrs))


@tf_export("tile")
def tile(input, multiples, name=None):  # noqa: A002
    """Repeat `input` `multiples[i]` times along dim i."""
    t = convert_to_tensor(input)
    m, dyn = _shape_attr(multiples, "tile", "multiples")
    return apply_tensor_attrs("tile", (t,), {"multiples": m}, {"multiples": dyn})


@tf_export("pad")
def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pad with `paddings[i] = [before, after]` per dim: a constant, or a mirror of the edge
    (REFLECT excludes the edge element, SYMMETRIC repeats it)."""
    t = convert_to_tensor(tensor)
    m = mode.upper() if isinstance(mode, str) else mode
    if m not in PAD_MODES:
        raise ValueError(f'pad: Value of argument `mode` expected to be one of "CONSTANT", '
                         f'"REFLECT", or "SYMMETRIC". Received `mode` = {mode}')
    dyn = None
    if isinstance(paddings, (list, tuple)) and _nested_has_tensor(paddings) and all(
            isinstance(r, (list, tuple)) and len(r) == 2 for r in paddings):
        flat, dyn = tensor_arg([x for r in paddings for x in r], "pad", "paddings")
    elif is_tensor_arg(paddings):
        p = convert_to_tensor(paddings, dtype_hint=D.int32)
        if p.shape.rank != 2 or p.shape[1] != 2:
            raise _invalid("pad", f"paddings must be a matrix with 2 columns, got {p!r}")
        flat, dyn = tensor_arg(reshape(p, [-1]), "pad", "paddings")
    else:
        rows = _as_python(paddings, "pad", "paddings")
        if not isinstance(rows, (list, tuple)):
            rows = [rows]
        flat = []
        for row in rows:
            if not isinstance(row, (list, tuple)) or len(row) != 2:
                raise _invalid("pad", f"paddings must be a matrix with 2 columns, got "
                                      f"{paddings!r}")
            flat.extend(_int_or_fail(x, "pad", "paddings", errors.InvalidArgumentError)
                        for x in row)
    c = constant_values
    if m != "CONSTANT" or (not _is_tensor_like(c) and isinstance(c, numbers.Number) and c == 0):
        c = _scalar(0, t.dtype)  # the default pads with the dtype's zero (False for bool)
    elif _is_tensor_like(c):
        c = convert_to_tensor(c)
    else:
        c = convert_to_tensor(c, dtype=t.dtype)
    return apply_tensor_attrs("pad", (t, c), {"paddings": tuple(flat), "mode": m},
                              {"paddings": dyn})


@tf_export("reverse")
def reverse(tensor, axis, name=None):
    """Reverse the order of elements along each dim in `axis` (a list)."""
    t = convert_to_tensor(tensor)
    ax = _as_python(axis, "reverse", "axis")
    if not isinstance(ax, (list, tuple)):
        raise _invalid("reverse", f"'dims' must be 1-dimension, not 0 (got axis={axis!r}; "
                                  f"pass a list)")
    return apply("reverse", (t,), {"axis": _ints(ax, "reverse", "axis")})


# --- slicing ------------------------------------------------------------------------------
@tf_export("slice")
def slice(input_, begin, size, name=None):  # noqa: A001  (TF's name)
    """The block starting at `begin` of shape `size` (-1: to the end of that dim)."""
    t = convert_to_tensor(input_)
    b, b_dyn = _shape_attr(begin, "slice", "begin")
    s, s_dyn = _shape_attr(size, "slice", "size")
    return apply_tensor_attrs("slice", (t,), {"begin": b, "size": s},
                              {"begin": b_dyn, "size": s_dyn})


@tf_export("strided_slice")
def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """TF's strided slice: `begin`/`end`/`strides` per spec entry, with bit masks."""
    t = convert_to_tensor(input_)
    masks = {k: _int(v, "strided_slice", k) for k, v in (
        ("begin_mask", begin_mask), ("end_mask", end_mask), ("ellipsis_mask", ellipsis_mask),
        ("new_axis_mask", new_axis_mask), ("shrink_axis_mask", shrink_axis_mask))}
    return _strided_slice(t, begin, end, strides, masks)


def _strided_slice(t, begin, end, strides, masks):
    """strided_slice with spec lists that may hold tensors computed in the graph."""
    b, b_dyn = _shape_attr(begin, "strided_slice", "begin")
    e, e_dyn = _shape_attr(end, "strided_slice", "end")
    s, s_dyn = ((1,) * len(b), None) if strides is None else \
        _shape_attr(strides, "strided_slice", "strides")
    return apply_tensor_attrs("strided_slice", (t,), {"begin": b, "end": e, "strides": s,
                                                      **masks},
                              {"begin": b_dyn, "end": e_dyn, "strides": s_dyn})


def _index_value(idx):
    """A Python int from an index or slice bound, with TF's accepted types; a scalar tensor
    whose value is unknown while tracing stays a tensor (fed to the slice at run time)."""
    if isinstance(idx, numbers.Integral) and not isinstance(idx, bool):
        return int(idx)
    if _is_tensor_like(idx):
        t = convert_to_tensor(idx)
        if t.dtype in _SLICE_INDEX_DTYPES and t.shape.rank == 0:
            v = traced_value(t)
            return t if v is None else v
    elif hasattr(idx, "dtype") and hasattr(idx, "ndim") and idx.ndim == 0 \
            and idx.dtype.kind in "iu":
        return int(idx)
    raise TypeError(f"{_SLICE_TYPE_ERROR}, got {idx!r}")


def _is_bool_mask(spec):
    if isinstance(spec, bool):
        return True
    dt = getattr(spec, "dtype", None)
    if _is_tensor_like(spec):
        return convert_to_tensor(spec).dtype.is_bool
    return dt is not None and getattr(dt, "kind", None) == "b"


def slice_helper(tensor, slice_spec):
    """`tensor[slice_spec]` with TF's rules: ints (negative from the end), slices with steps,
    `...`, `None`/`tf.newaxis` and scalar integer tensors, lowered onto one strided_slice. A
    list spec acts as a tuple (as in TF). Boolean masks and integer-array indices are not
    supported (use tf.boolean_mask / tf.gather)."""
    t = convert_to_tensor(tensor)
    if _is_bool_mask(slice_spec):
        raise TypeError(f"{_SLICE_TYPE_ERROR}, got {slice_spec!r} (boolean masks are not "
                        f"supported by []: use tf.boolean_mask)")
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = (slice_spec,)
    begin, end, strides, dynamic = [], [], [], []
    masks = dict.fromkeys(("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                           "shrink_axis_mask"), 0)
    for i, s in enumerate(slice_spec):
        bit = 1 << i
        if isinstance(s, _pyslice):
            if s.start is None:
                begin.append(0)
                masks["begin_mask"] |= bit
            else:
                begin.append(_index_value(s.start))
            if s.stop is None:
                end.append(0)
                masks["end_mask"] |= bit
            else:
                end.append(_index_value(s.stop))
            strides.append(1 if s.step is None else _index_value(s.step))
        elif s is Ellipsis or s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            masks["ellipsis_mask" if s is Ellipsis else "new_axis_mask"] |= bit
        else:
            if isinstance(s, (bool,)) or _is_bool_mask(s):
                raise TypeError(f"{_SLICE_TYPE_ERROR}, got {s!r}")
            dyn = _dynamic_index(s)
            if dyn is not None:
                # a scalar index computed in the graph: keep the axis here, gather it below
                dynamic.append((i, dyn))
                begin.append(0)
                end.append(0)
                strides.append(1)
                masks["begin_mask"] |= bit
                masks["end_mask"] |= bit
                continue
            k = _index_value(s)
            begin.append(k)
            end.append(k + 1)
            strides.append(1)
            masks["shrink_axis_mask"] |= bit
    if all(type(v) is int for v in (*begin, *end, *strides)):
        out = apply("strided_slice", (t,), {"begin": tuple(begin), "end": tuple(end),
                                            "strides": tuple(strides), **masks})
    else:  # a bound computed in the graph
        out = _strided_slice(t, begin, end, strides, masks)
    if dynamic:
        axes = _output_axes(slice_spec, t.shape.rank)
        for pos, index in reversed(dynamic):  # last axis first: earlier axes keep their number
            ax = axes[pos]
            n = out.shape[ax]
            size = convert_to_tensor(n, dtype=index.dtype) if n is not None else \
                _cast_like(shape(out)[ax], index)
            from .math import add, less, where as _where
            index = _where(less(index, 0), add(index, size), index)  # negative: from the end
            out = gather(out, index, axis=ax)
    return out


def _dynamic_index(s):
    """A scalar integer tensor whose value is unknown while tracing, else None."""
    if not _is_tensor_like(s):
        return None
    t = convert_to_tensor(s)
    if t.dtype not in _SLICE_INDEX_DTYPES or t.shape.rank != 0:
        return None
    try:
        _known_value(t, "strided_slice", "index")
        return None
    except NotImplementedError:
        return t


def _output_axes(spec, rank):
    """Spec position -> axis of the strided_slice result, for entries that keep an axis."""
    fixed = sum(1 for s in spec if s is not Ellipsis and s is not None)
    axes, ax = {}, 0
    for pos, s in enumerate(spec):
        if s is Ellipsis:
            ax += max(rank - fixed, 0) if rank is not None else 0
        elif s is None or isinstance(s, _pyslice) or _dynamic_index(s) is not None:
            axes[pos] = ax
            ax += 1
    return axes


def _cast_like(x, like):
    from .math import cast
    return cast(x, like.dtype) if x.dtype != like.dtype else x


# --- gather and scatter -------------------------------------------------------------------
@tf_export("gather")
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Slices of `params` along `axis` at `indices` (out-of-range indices raise)."""
    if getattr(params, "_tf_composite", False) and hasattr(params, "_gather"):
        return params._gather(indices, axis, batch_dims)   # a RaggedTensor's rows
    p = convert_to_tensor(params)
    ix = convert_to_tensor(indices)
    bd = _int(batch_dims, "gather", "batch_dims")
    ax = bd if axis is None else _int(axis, "gather", "axis", errors.InvalidArgumentError)
    if ax == 0:
        bd = 0  # TF ignores batch_dims when axis is literally 0 (it takes a plain gather path)
    return apply("gather", (p, ix), {"axis": ax, "batch_dims": bd})


def gather_dense_gradient(params, indices, axis):
    """`gather` for compositions TF builds from slices and reshapes: along the first axis a
    gather_nd, whose gradient is dense (`gather`'s there is an IndexedSlices)."""
    p = convert_to_tensor(params)
    rank = p.shape.rank
    if rank is None or (axis + rank if axis < 0 else axis) != 0:
        return gather(p, indices, axis=axis)
    ix = convert_to_tensor(indices)
    return gather_nd(p, apply("expand_dims", (ix,), {"axis": -1}))


@tf_export("gather_nd")
def gather_nd(params, indices, batch_dims=0, name=None, bad_indices_policy=""):
    """Slices of `params` at the index tuples in the last dim of `indices`."""
    p = convert_to_tensor(params)
    ix = convert_to_tensor(indices)
    bd = _int(batch_dims, "gather_nd", "batch_dims")
    if bd < 0:
        raise ValueError("gather_nd: tf.gather_nd does not allow negative batch_dims.")
    for what, r in (("indices", ix.shape.rank), ("params", p.shape.rank)):
        if r is not None and bd and bd >= r:
            raise ValueError(f"gather_nd: Argument `batch_dims` = {bd} must be less than "
                             f"rank(`{what}`) = {r}")
    return apply("gather_nd", (p, ix), {"batch_dims": bd})


def _check_bad_indices_policy(policy, opname):
    """flowjit raises on an out-of-range index, TF's CPU default ("" or "DEFAULT", "ERROR");
    TF's "IGNORE" (skip such updates) is not implemented."""
    if policy not in ("", "DEFAULT", "ERROR"):
        raise errors.UnimplementedError(None, opname, f"{opname}: bad_indices_policy "
                                        f"{policy!r} is not supported; flowjit raises on a "
                                        f"bad index (\"\", \"DEFAULT\" or \"ERROR\")")


@tf_export("scatter_nd")
def scatter_nd(indices, updates, shape, bad_indices_policy="", name=None):
    """Zeros of `shape` with `updates` added at `indices` (duplicates accumulate)."""
    _check_bad_indices_policy(bad_indices_policy, "scatter_nd")
    ix = convert_to_tensor(indices)
    upd = convert_to_tensor(updates)
    dims = _ints(shape, "scatter_nd", "shape", TypeError)
    return apply("scatter_nd", (ix, upd), {"shape": dims})


@tf_export("tensor_scatter_nd_update")
def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """A copy of `tensor` with `updates` written at `indices`."""
    t = convert_to_tensor(tensor)
    ix = convert_to_tensor(indices)
    upd = updates if _is_tensor_like(updates) else convert_to_tensor(updates, dtype=t.dtype)
    return apply("tensor_scatter_nd_update", (t, ix, convert_to_tensor(upd)))


@tf_export("tensor_scatter_nd_add")
def tensor_scatter_nd_add(tensor, indices, updates, bad_indices_policy="", name=None):
    """A copy of `tensor` with `updates` added at `indices` (duplicates accumulate)."""
    _check_bad_indices_policy(bad_indices_policy, "tensor_scatter_nd_add")
    t = convert_to_tensor(tensor)
    ix = convert_to_tensor(indices)
    upd = updates if _is_tensor_like(updates) else convert_to_tensor(updates, dtype=t.dtype)
    return apply("tensor_scatter_nd_add", (t, ix, convert_to_tensor(upd)))


# --- generators ---------------------------------------------------------------------------
# TF: a string "zero" is b"" (zeros, zeros_like); there is no string one (ones raises)
_PY_TYPE = {"b": bool, "f": float, "s": lambda v: b"" if v == 0 else v}


def _scalar(value, dt):
    """A scalar tensor of `dt` from a Python number (of the Python type TF accepts)."""
    return convert_to_tensor(_PY_TYPE.get(dt.kind, int)(value), dtype=dt)


@tf_export("fill")
def fill(dims, value, name=None, layout=None):
    """A tensor of shape `dims` filled with the scalar `value`."""
    shape, dyn = _shape_attr(dims, "fill", "dims", any_length=True)
    _nonneg_dims(shape, "fill")
    v = convert_to_tensor(value)
    if v.shape.rank:
        if v.shape.num_elements() != 1:
            raise _invalid("fill", f"value must be a scalar, got shape {v.shape}")
        v = reshape(v, ())
    return apply_tensor_attrs("broadcast_to", (v,), {"shape": shape}, {"shape": dyn})


def _filled(shape, dtype, value, opname):
    dims, dyn = _shape_attr(shape, opname, "shape", TypeError, any_length=True)
    return apply_tensor_attrs("broadcast_to", (_scalar(value, D.as_dtype(dtype)),),
                              {"shape": _nonneg_dims(dims, opname)}, {"shape": dyn})


@tf_export("zeros")
def zeros(shape, dtype=D.float32, name=None, layout=None):
    """A tensor of zeros (False for bool)."""
    return _filled(shape, dtype, 0, "zeros")


@tf_export("ones")
def ones(shape, dtype=D.float32, name=None, layout=None):
    """A tensor of ones (True for bool)."""
    return _filled(shape, dtype, 1, "ones")


@tf_export("zeros_like")
@runs("fill_like")
def zeros_like(input, dtype=None, name=None, layout=None):  # noqa: A002
    """Zeros with `input`'s shape, of `dtype` (default: `input`'s)."""
    t = convert_to_tensor(input)
    dt = t.dtype if dtype is None else D.as_dtype(dtype)
    return apply("fill_like", (t, _scalar(0, dt)))


@tf_export("ones_like")
def ones_like(input, dtype=None, name=None, layout=None):  # noqa: A002
    """Ones with `input`'s shape, of `dtype` (default: `input`'s)."""
    t = convert_to_tensor(input)
    dt = t.dtype if dtype is None else D.as_dtype(dtype)
    return apply("fill_like", (t, _scalar(1, dt)))


_RANGE_HIERARCHY = (D.int32, D.int64, D.float32, D.float64)


@tf_export("range")
def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    """start, start + delta, ... below `limit` (above it for negative delta). Without
    `dtype`: int32 for Python ints, float32 if any is a float; tensors bring their dtype and
    the widest of int32 < int64 < float32 < float64 wins."""
    if limit is None:
        start, limit = 0, start
    vals, dts, dyn = [], [], {}
    for what, v in (("start", start), ("limit", limit), ("delta", delta)):
        if _is_tensor_like(v):
            t = convert_to_tensor(v)
            if t.shape.rank not in (0, 1) or (t.shape.rank == 1 and t.shape[0] != 1):
                if t._value is None:  # TF's graph-construction check
                    raise ValueError(f"range: Shape must be rank 0 but is rank {t.shape.rank} "
                                     f"for '{what}'")
                raise _invalid("range", f"bounds must be scalars, got {t!r}")
            x = traced_value(t) if t.dtype.is_integer else _known_value(t, "range", what)
            x = x[0] if isinstance(x, (list, tuple)) else x
            if x is None:
                dyn[what] = t
            vals.append(x)
            dts.append(t.dtype)
        else:
            v = v.tolist() if hasattr(v, "tolist") else v
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise TypeError(f"range: bounds must be numbers, got {v!r}")
            vals.append(v)
            dts.append(convert_to_tensor(v).dtype)
    if dtype is None:
        for d in dts:
            if d not in _RANGE_HIERARCHY:
                raise TypeError(f"range: cannot infer a dtype from a {d.name} tensor; pass "
                                f"dtype=")
        dt = max(dts, key=_RANGE_HIERARCHY.index)
    else:
        dt = D.as_dtype(dtype)
        if dt.is_bool:
            raise TypeError("range: dtype bool is not supported")
    if dt.is_integer:
        for v in vals:
            if v is not None and (isinstance(v, float) or not dt.min <= v <= dt.max):
                raise TypeError(f"range: Cannot convert {v!r} to EagerTensor of dtype "
                                f"{dt.name}")
    nums = [None if v is None else (int if dt.is_integer else float)(v) for v in vals]
    return apply_tensor_attrs("range", (), {"start": nums[0], "limit": nums[1],
                                            "delta": nums[2], "dtype": dt}, dyn)


@tf_export("linspace")
def linspace(start, stop, num, name=None, axis=0):
    """`num` evenly spaced values from `start` to `stop` inclusive, along a new `axis`
    (start and stop may be tensors: they broadcast). Integer inputs give float64."""
    start = convert_to_tensor(start)
    stop = convert_to_tensor(stop) if _is_tensor_like(stop) else \
        convert_to_tensor(stop, dtype=start.dtype if start.dtype.is_floating else None)
    if not start.dtype.is_floating:
        start = _m.cast(start, D.float64)
    if not stop.dtype.is_floating:
        stop = _m.cast(stop, D.float64)
    if isinstance(num, float) or (_is_tensor_like(num) and
                                  not convert_to_tensor(num).dtype.is_integer):
        raise TypeError(f"linspace: `num` must be an integer, got {num!r}")
    n = _int(num, "linspace", "num")
    if n < 0:
        raise _invalid("linspace", f"Requires num >= 0, got {n}")
    if start.shape != stop.shape:
        start, stop = (_m.add(start, zeros_like(stop)), _m.add(stop, zeros_like(start)))
    r = _static_rank(start, "linspace")
    ax = _int(axis, "linspace", "axis")
    if not -(r + 1) <= ax <= r:
        raise _invalid("linspace", f"axis {ax} is out of range for a result of rank {r + 1}")
    ax %= r + 1
    first = apply("expand_dims", (start,), {"axis": ax})
    if n < 2:
        size = tuple(n if i == ax else -1 for i in _pyrange(r + 1))
        return apply("slice", (first,), {"begin": (0,) * (r + 1), "size": size})
    last = apply("expand_dims", (stop,), {"axis": ax})
    dt = start.dtype
    delta = _m.divide(_m.subtract(last, first), _scalar(n - 1, dt))
    steps = reshape(range(1, n - 1, dtype=dt), (n - 2,) + (1,) * (r - ax))
    mid = _m.add(first, _m.multiply(steps, delta))
    return apply("concat", (first, mid, last), {"axis": ax})


def _size_arg(value, opname, what):
    """A scalar size TF takes as a tensor: an int when known while the op is built, else the
    integer tensor that holds it."""
    if is_tensor_arg(value):
        v, dyn = tensor_arg(value, opname, what, scalar=True)
        return v if dyn is None else dyn
    return _int(value, opname, what)


@tf_export("linalg.eye", "eye")
def eye(num_rows, num_columns=None, batch_shape=None, dtype=D.float32, name=None):
    """Identity matrix (ones on the main diagonal) of shape `batch_shape + [rows, columns]`."""
    n = _size_arg(num_rows, "eye", "num_rows")
    m = n if num_columns is None else _size_arg(num_columns, "eye", "num_columns")
    batch = () if batch_shape is None else \
        _nonneg_dims(_ints(batch_shape, "eye", "batch_shape"), "eye")
    if type(n) is int and type(m) is int:
        _nonneg_dims((n, m), "eye")
        # TF allocates the diagonal first: a huge one is its out-of-memory error
        _refuse_huge("eye", dtype, (min(n, m),))
        _refuse_huge("eye", dtype, batch + (n, m))
    rows = expand_dims(range(n), 1)
    diag = _m.cast(_m.equal(rows, range(m)), D.as_dtype(dtype))
    if batch_shape is None:
        return diag
    return broadcast_to(diag, list(batch) + [n, m])


@tf_export("one_hot")
def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """`on_value` where the new `axis` (default last) equals the index, else `off_value`;
    indices outside [0, depth) give an all-off row."""
    ix = convert_to_tensor(indices)
    if ix.dtype not in (D.uint8, D.int8, D.int32, D.int64):
        raise _invalid("one_hot", f"indices must be uint8, int8, int32 or int64, got "
                                  f"{ix.dtype.name}", dtype_error=True)
    d, d_dyn = tensor_arg(depth, "one_hot", "depth", scalar=True) \
        if is_tensor_arg(depth) else (_int(depth, "one_hot", "depth"), None)
    if d is not None and d < 0:
        raise _invalid("one_hot", f"depth must be non-negative, got: {d}")
    r = _static_rank(ix, "one_hot")
    ax = -1 if axis is None else _int(axis, "one_hot", "axis")
    if not (ax == -1 or 0 <= ax <= r):
        raise _invalid("one_hot", f"Expected axis to be -1 or between [0, {r + 1}).  But "
                                  f"received: {ax}")
    pos = r if ax == -1 else ax

    def value(v):
        if v is None:
            return None
        if _is_tensor_like(v):
            t = convert_to_tensor(v)
            if dtype is not None and t.dtype is not D.as_dtype(dtype):
                raise TypeError(f"one_hot: dtype {t.dtype!r} of the on/off value does not "
                                f"match dtype parameter {D.as_dtype(dtype)!r}")
            return t
        return convert_to_tensor(v, dtype=dtype)

    on, off = value(on_value), value(off_value)
    if on is not None and off is not None and on.dtype is not off.dtype:
        raise TypeError(f"one_hot: dtype {on.dtype!r} of on_value does not match dtype "
                        f"{off.dtype!r} of off_value")
    dt = D.as_dtype(dtype) if dtype is not None else (
        on.dtype if on is not None else off.dtype if off is not None else D.float32)
    on = _scalar(1, dt) if on is None else on
    off = _scalar(0, dt) if off is None else off
    for what, v in (("on_value", on), ("off_value", off)):
        if v.shape.rank != 0:
            raise _invalid("one_hot", f"{what} must be a scalar, got shape {v.shape}")
    # Compare against 0..depth-1 laid out along the new axis; negative or too-large
    # indices match nothing.
    wide = D.int64 if ix.dtype is D.int64 else D.int32
    ix = _m.cast(ix, wide)
    if d_dyn is not None:  # a depth computed in the graph
        d = _m.cast(reshape(d_dyn, ()), wide)
    hot = _m.equal(expand_dims(ix, pos),
                   reshape(range(d, dtype=wide), [d] + [1] * (r - pos)))
    return apply("select", (hot, on, off))


# --- shape queries ------------------------------------------------------------------------
def _sparse_dense_shape(value):
    """A SparseTensor's dense shape (the shape TF's shape queries give for it), else None."""
    from ..composite.sparse_tensor import SparseTensor
    return value.dense_shape if isinstance(value, SparseTensor) else None


@tf_export("shape")
def shape(input, out_type=None, name=None):  # noqa: A002
    """The shape of `input` (a SparseTensor's dense shape) as a 1-D int32 (or `out_type`)
    tensor."""
    out_type = D.as_dtype(out_type or D.int32)
    dense_shape = _sparse_dense_shape(input)
    if dense_shape is not None:
        return _m.cast(dense_shape, out_type)
    return apply("shape", (convert_to_tensor(input),), {"out_type": out_type})


@tf_export("size")
def size(input, out_type=None, name=None):  # noqa: A002
    """The number of elements of `input` (a SparseTensor's dense elements) as a scalar int32
    (or `out_type`) tensor."""
    out_type = D.as_dtype(out_type or D.int32)
    dense_shape = _sparse_dense_shape(input)
    if dense_shape is not None:
        return _m.cast(apply("reduce_prod", (dense_shape,), {"axis": None, "keepdims": False}),
                       out_type)
    return apply("size", (convert_to_tensor(input),), {"out_type": out_type})


@tf_export("rank")
def rank(input, name=None):  # noqa: A002
    """The number of dims of `input` (a SparseTensor's dense dims), a scalar int32 tensor."""
    dense_shape = _sparse_dense_shape(input)
    if dense_shape is not None:
        return size(dense_shape)
    t = convert_to_tensor(input)
    r = t.shape.rank
    if r is not None:
        return convert_to_tensor(r, dtype=D.int32)
    return size(shape(t))


# --- sorting ------------------------------------------------------------------------------
def _direction(direction, opname):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"{opname}: Argument `direction` should be one of ASCENDING, "
                         f"DESCENDING. Received: direction={direction}")
    return direction == "DESCENDING"


@tf_export("sort")
def sort(values, axis=-1, direction="ASCENDING", name=None):
    """Values sorted along `axis` (NaN counts as the largest)."""
    t = convert_to_tensor(values)
    desc = _direction(direction, "sort")
    return apply("sort", (t,), {"axis": _int(axis, "sort", "axis"), "descending": desc})


@tf_export("argsort")
def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """int32 indices that sort `values` along `axis`. Always stable: equal values keep their
    order (as TF's is in practice)."""
    t = convert_to_tensor(values)
    desc = _direction(direction, "argsort")
    return apply("argsort", (t,), {"axis": _int(axis, "argsort", "axis"), "descending": desc,
                                   "stable": bool(stable)})


# --- boolean_mask: TF's composition, reshape + where + gather ---------------------------
@tf_export("boolean_mask")
def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """The slices of `tensor` where `mask` (matching `tensor.shape[axis:axis+mask.rank]`) is
    true, flattened into one axis at `axis`. The result's size depends on the mask's values,
    so it runs eagerly and on the graph executor; XLA refuses it."""
    t, m = convert_to_tensor(tensor), convert_to_tensor(mask)
    if m.shape.rank == 0:
        raise ValueError("boolean_mask: mask cannot be scalar.")
    if m.shape.rank is None or t.shape.rank is None:
        raise ValueError("boolean_mask: the ranks of tensor and mask must be known "
                         "statically.")
    ax = 0 if axis is None else _int(axis, "boolean_mask", "axis")
    ax += t.shape.rank if ax < 0 else 0
    dims, mdims = t.shape.as_list(), m.shape.as_list()
    got = dims[ax:ax + len(mdims)]
    if len(got) != len(mdims) or any(a is not None and b is not None and a != b
                                     for a, b in zip(got, mdims)):
        raise ValueError(f"boolean_mask: Shapes {_shape_text(got)} and {_shape_text(mdims)} "
                         f"are incompatible")
    outer = dims[:ax] + [-1] + dims[ax + len(mdims):]
    if outer.count(None):
        raise ValueError(f"boolean_mask: the dims of tensor outside the mask must be known, "
                         f"got shape {t.shape}")
    flat = reshape(t, outer)
    picked = apply("where_indices", (reshape(m, [-1]),))
    return gather(flat, reshape(picked, [-1]), axis=ax)


def _shape_text(dims) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in dims) + \
        ("," if len(dims) == 1 else "") +")"
