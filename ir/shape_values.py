"""Partial evaluation of shape arithmetic (TF's `constant_value` / `constant_value_as_shape`).

A shape, size or bound computed in the graph (`tf.shape(x)[0] * 2`, `tf.concat([tf.shape(x)
[:1], [-1]], 0)`) is usually knowable from static shapes alone. `partial_value` walks the
integer ops that build such values and returns what is known: an int (or None) for a scalar,
a tuple of int-or-None for a vector. Tracing uses it to keep static inference exact; the XLA
specialization uses it, with concrete shapes, to fold every shape value to a constant.
"""
from __future__ import annotations

import numpy as np

from .ops.array import NEW_AXIS, strided_slice_plan
from .registry import InferenceError, is_partial

_BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "floordiv": lambda a, b: a // b if b else None, "floormod": lambda a, b: a % b if b else None,
    "maximum": max, "minimum": min,
}
_UNARY = {"neg": lambda a: -a, "abs": abs, "identity": lambda a: a, "cast": lambda a: a}


def partial_value(node, index: int = 0, leaf=None):
    """What is known of the integer value `node` produces at output `index`: for a scalar an
    int or None; for a vector a tuple of int-or-None (None when even its length is unknown).
    `leaf(node)` may give the value of a placeholder (a captured constant), else None."""
    tt = node.out_types[index]
    if not tt.dtype.is_integer or tt.shape is None or len(tt.shape) > 1:
        return None
    rule = _RULES.get(node.op)
    value = rule(node, index, leaf) if rule is not None else None
    if value is None and node.op == "placeholder" and leaf is not None:
        value = leaf(node)
    if value is None and tt.shape and tt.shape[0] is not None:
        return (None,) * tt.shape[0]  # a vector of known length, values unknown
    return value


def known_value(node, index: int = 0, leaf=None):
    """The value if fully known (an int or a tuple of ints), else None."""
    v = partial_value(node, index, leaf)
    return None if is_partial(v) else v


def data_source(node, index: int = 0) -> str:
    """Names the op whose tensor values (not shapes) make `node`'s value unknown: the first
    input, walking up, that no shape rule can evaluate."""
    seen = set()
    todo = [(node, index)]
    while todo:
        n, i = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        if n.op not in _RULES or n.op in ("const", "shape", "size"):
            return f"'{n.op}' node {n.name} ({n.location})"
        todo.extend((src, j) for src, j in n.inputs if is_partial(partial_value(src, j))
                    or not src.out_types[j].dtype.is_integer)
    return f"'{node.op}' node {node.name} ({node.location})"


def _input(node, i, leaf):
    src, idx = node.inputs[i]
    return partial_value(src, idx, leaf)


def _const(node, index, leaf):
    v = node.attrs["value"].tolist()
    return tuple(v) if isinstance(v, list) else v


def _shape(node, index, leaf):
    return node.inputs[0][0].out_types[node.inputs[0][1]].shape


def _size(node, index, leaf):
    s = _shape(node, index, leaf)
    if s is None or None in s:
        return None
    return int(np.prod(s, dtype=np.int64))


def _elementwise(fn, args):
    """`fn` on scalars or equal-length vectors (scalars broadcast); None entries stay None."""
    lengths = {len(a) for a in args if isinstance(a, tuple)}
    if not lengths:
        return None if None in args else fn(*args)
    if len(lengths) > 1:
        return None
    n = lengths.pop()
    rows = zip(*[a if isinstance(a, tuple) else (a,) * n for a in args])
    return tuple(None if None in r else fn(*r) for r in rows)


def _binary(node, index, leaf):
    a, b = _input(node, 0, leaf), _input(node, 1, leaf)
    if a is None and b is None:
        return None
    return _elementwise(_BINARY[node.op], (a, b))


def _unary(node, index, leaf):
    a = _input(node, 0, leaf)
    return None if a is None else _elementwise(_UNARY[node.op], (a,))


def _strided_slice(node, index, leaf):
    v = _input(node, 0, leaf)
    if not isinstance(v, tuple) or node.attrs.get("new_axis_mask") or \
            any(is_partial(node.attrs[k]) for k in ("begin", "end", "strides")):
        return None
    spec = {k: node.attrs[k] for k in ("begin", "end", "strides", "begin_mask", "end_mask",
                                       "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
            if k in node.attrs}
    try:
        (entry,), _ = strided_slice_plan((len(v),), **spec)
    except (InferenceError, ValueError):
        return None
    if entry is NEW_AXIS:
        return None
    if isinstance(entry, int):
        return v[entry]
    b, size, s = entry
    return tuple(v[b + k * s] for k in range(size))


def _expand_dims(node, index, leaf):
    v = _input(node, 0, leaf)
    return None if isinstance(v, tuple) else (v,)  # a scalar becomes a one-element vector


def _concat(node, index, leaf):
    parts = [partial_value(src, i, leaf) for src, i in node.inputs]
    if any(not isinstance(p, tuple) for p in parts):
        return None
    return sum(parts, ())


def _reshape(node, index, leaf):
    v = _input(node, 0, leaf)
    out = node.out_types[0].shape
    if v is None or out is None:
        return None
    flat = v if isinstance(v, tuple) else (v,)
    if out == ():
        return flat[0] if len(flat) == 1 else None
    return flat if out == (len(flat),) else None


def _range(node, index, leaf):
    bounds = dict(node.attrs)
    for i, name in enumerate(a for a in ("start", "limit", "delta") if is_partial(bounds[a])):
        bounds[name] = _input(node, i, leaf)
    start, limit, delta = (bounds[a] for a in ("start", "limit", "delta"))
    if not all(isinstance(v, int) for v in (start, limit, delta)) or delta == 0:
        return None
    values = range(start, limit, delta)
    return tuple(values) if len(values) <= _MAX_RANGE else None


_MAX_RANGE = 1024  # a range used as a shape is short; a long one is data, left to run time


_RULES = {"const": _const, "range": _range, "shape": _shape, "size": _size,
          "strided_slice": _strided_slice, "expand_dims": _expand_dims, "concat": _concat,
          "reshape": _reshape,
          **dict.fromkeys(_BINARY, _binary), **dict.fromkeys(_UNARY, _unary)}
