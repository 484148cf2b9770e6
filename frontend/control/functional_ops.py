"""`tf.map_fn`, `tf.scan`, `tf.foldl`, `tf.foldr`: as TF, a `while_loop` over the first
dimension of `elems` that reads element `i` of every input and collects results in
TensorArrays. Eagerly the loop runs in Python; traced it is one `while` node (static trip
count when the first dimension is known, so XLA and loop gradients get a bound).
"""
from __future__ import annotations

from ...ir import dtypes as D
from ...ir import errors
from ...ir.shapes import TensorShape
from . import control_flow
from ..eager import dispatch
from .. import nest
from ..function.specs import TensorSpec
from .tensor_array import TensorArray


def _ops():
    from ..ops import array, math
    return array, math


def _elems(elems, opname):
    """The flat input tensors and their common first dimension (int, or an int32 tensor)."""
    array, _ = _ops()
    flat = [dispatch.convert_to_tensor(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError(f"{opname}: elems must hold at least one tensor")
    first = TensorShape(None)
    for t in flat:
        if t.shape.rank == 0:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
        dim = TensorShape(None) if t.shape.rank is None else TensorShape([t.shape[0]])
        if not first.is_compatible_with(dim):
            raise ValueError(f"Dimensions {first[0]} and {dim[0]} are not compatible")
        first = first.merge_with(dim)
    n = first[0] if first.rank else None
    return flat, (n if n is not None else array.shape(flat[0])[0])


def _row(flat, i, n, reverse):
    array, _ = _ops()
    j = (n - 1 - i) if reverse else i
    # gather_nd, not gather: TF's gradient of the elements is dense, not IndexedSlices
    return [array.gather_nd(t, array.reshape(j, [1])) for t in flat]


def _loop(body, init, n, start):
    """`for i in range(start, n): state = body(i, state)`; returns the final state."""
    _, math = _ops()
    bound = n - start if isinstance(n, int) else None
    i0 = dispatch.convert_to_tensor(start, dtype=D.int32)
    _, out = control_flow.while_loop(lambda i, s: math.less(i, n),
                                     lambda i, s: (i + 1, body(i, s)), (i0, init),
                                     maximum_iterations=bound)
    return out


def _leaf_spec(leaf):
    """A leaf of `fn_output_signature` (a TensorSpec or a dtype) as (dtype, element shape)."""
    if isinstance(leaf, TensorSpec):
        return leaf.dtype, leaf.shape
    return D.as_dtype(leaf), TensorShape(None)


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None, fn_output_signature=None):
    """`fn` applied to each slice of `elems` along its first dimension, results stacked. The
    result has the structure and dtypes of `fn_output_signature` (default: those of elems)."""
    signature = fn_output_signature if fn_output_signature is not None else dtype
    flat, n = _elems(elems, "map_fn")
    structure = signature if signature is not None else \
        nest.pack_sequence_as(elems, [t.dtype for t in flat])
    specs = [_leaf_spec(leaf) for leaf in nest.flatten(structure)]
    arrays = [TensorArray(dt, size=n, element_shape=shape, infer_shape=infer_shape)
              for dt, shape in specs]

    def body(i, tas):
        out = fn(nest.pack_sequence_as(elems, _row(flat, i, n, False)))
        outs = nest.flatten(out)
        if len(outs) != len(tas) or not _same_nest(structure, out):
            raise ValueError(f"map_fn: fn returned {out!r}, which does not match the "
                             f"structure of fn_output_signature {structure!r}")
        return [ta.write(i, v) for ta, v in zip(tas, outs)]

    tas = _loop(body, arrays, n, 0)
    return nest.pack_sequence_as(structure, [ta.stack() for ta in tas])


def _same_nest(structure, out) -> bool:
    return nest.same_structure(structure, out) or (not nest.is_nested(structure) and
                                                   len(nest.flatten(out)) == 1)


def _initial(elems, initializer, flat, n, reverse, opname):
    """(accumulator, first index): the initializer, else element 0 (n-1 reversed)."""
    if initializer is not None:
        return initializer, 0
    if isinstance(n, int) and n == 0:
        raise errors.OutOfRangeError(None, opname, "Tried to read from index 0 but array size "
                                     "is: 0")
    return nest.pack_sequence_as(elems, _row(flat, 0, n, reverse)), 1


def _accumulator(a):
    return nest.map_structure(dispatch.convert_to_tensor, a)


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """Every intermediate `a = fn(a, x)` over the slices of `elems`, stacked."""
    flat, n = _elems(elems, "scan")
    a0, start = _initial(elems, initializer, flat, n, reverse, "scan")
    a0 = _accumulator(a0)
    leaves = nest.flatten(a0)
    arrays = [TensorArray(t.dtype, size=n, element_shape=t.shape, infer_shape=infer_shape)
              for t in leaves]
    if start:
        arrays = [ta.write(n - 1 if reverse else 0, t) for ta, t in zip(arrays, leaves)]

    def body(i, state):
        a, tas = state
        a = _accumulator(fn(a, nest.pack_sequence_as(elems, _row(flat, i, n, reverse))))
        j = (n - 1 - i) if reverse else i
        return [a, [ta.write(j, v) for ta, v in zip(tas, nest.flatten(a))]]

    _, tas = _loop(body, [a0, arrays], n, start)
    return nest.pack_sequence_as(a0, [ta.stack() for ta in tas])


def _fold(fn, elems, initializer, reverse, opname):
    flat, n = _elems(elems, opname)
    a0, start = _initial(elems, initializer, flat, n, reverse, opname)

    def body(i, a):
        return _accumulator(fn(a, nest.pack_sequence_as(elems, _row(flat, i, n, reverse))))

    return _loop(body, _accumulator(a0), n, start)


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """`a = fn(a, x)` over the slices of `elems` from the first; the final `a`."""
    return _fold(fn, elems, initializer, False, "foldl")


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """`a = fn(a, x)` over the slices of `elems` from the last; the final `a`."""
    return _fold(fn, elems, initializer, True, "foldr")


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """`fn` applied to each slice of `elems` along the first dimension, results stacked (TF
    vectorizes `fn` with pfor; flowjit runs it per slice: unrolled when the number of slices
    is known while tracing, else as map_fn, whose output signature one call of `fn` on the
    first slice tells)."""
    flat, n = _elems(elems, "vectorized_map")
    array, _ = _ops()
    known = n if isinstance(n, int) else None
    if known is not None:
        if known == 0:
            raise ValueError("vectorized_map: elems must have a nonzero first dimension to "
                             "infer the output structure, got 0")
        rows = [fn(nest.pack_sequence_as(elems, [t[i] for t in flat])) for i in range(known)]
        leaves = [nest.flatten(r) for r in rows]
        stacked = [array.stack([leaf[j] for leaf in leaves]) for j in range(len(leaves[0]))]
        return nest.pack_sequence_as(rows[0], stacked)
    first = fn(nest.pack_sequence_as(elems, [t[0] for t in flat]))
    signature = nest.map_structure(lambda t: TensorSpec(t.shape, t.dtype), first)
    return map_fn(fn, elems, fn_output_signature=signature)
