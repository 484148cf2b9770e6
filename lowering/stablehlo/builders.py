"""The builders every lowering rule shares, defined once as methods of the lowering context
(`LoweringContext` in core.py inherits them), as JAX's `mlir.py` keeps its helpers: types,
constants and splats, converts and the half-float compute type, broadcasts, slices, reduce
bodies and comparisons. A rule calls them as `ctx.<builder>(...)`.
"""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir.dialect import ResourceType, TokenType, from_xdsl_type
from ...ir.errors import UnimplementedError
from ...runtime.jax_internals import hlo, ir, ir_constant

_ELEM = {
    D.float16: lambda: ir.F16Type.get(), D.bfloat16: lambda: ir.BF16Type.get(),
    D.float32: lambda: ir.F32Type.get(), D.float64: lambda: ir.F64Type.get(),
    D.int8: lambda: ir.IntegerType.get_signless(8),
    D.int16: lambda: ir.IntegerType.get_signless(16),
    D.int32: lambda: ir.IntegerType.get_signless(32),
    D.int64: lambda: ir.IntegerType.get_signless(64),
    D.uint8: lambda: ir.IntegerType.get_unsigned(8),
    D.uint16: lambda: ir.IntegerType.get_unsigned(16),
    D.uint32: lambda: ir.IntegerType.get_unsigned(32),
    D.uint64: lambda: ir.IntegerType.get_unsigned(64),
    D.bool_: lambda: ir.IntegerType.get_signless(1),
    D.complex64: lambda: ir.ComplexType.get(ir.F32Type.get()),
    D.complex128: lambda: ir.ComplexType.get(ir.F64Type.get()),
}
_DTYPE_OF_ELEM = {dt.mlir: dt for dt in D.ALL + D.COMPLEX}

# reduction kind -> the scalar combiner of its body
COMBINE = {"add": hlo.add, "mul": hlo.multiply, "max": hlo.maximum, "min": hlo.minimum,
           "and": hlo.and_, "or": hlo.or_}


def dtype_of_elem(elem) -> D.DType:
    dt = _DTYPE_OF_ELEM.get(str(elem))
    if dt is None:
        raise UnimplementedError(None, None, f"unsupported element type {elem}")
    return dt


def identity(dt: D.DType, kind: str):
    """The init value of a reduction `kind` for `dt` (max starts at the lowest value, min at
    the highest)."""
    if kind in ("add", "or"):
        return 0
    if kind in ("mul", "and"):
        return 1
    highest = kind == "min"
    if dt.is_floating:
        return np.inf if highest else -np.inf
    return dt.max if highest else dt.min


class Builders:
    """Shared StableHLO builders; the context supplies `self._elems` and `self._types`."""

    # --- types ----------------------------------------------------------------------------
    def elem_type(self, dt: D.DType):
        t = self._elems.get(dt)
        if t is None:
            t = self._elems[dt] = _ELEM[dt]()
        return t

    def tensor_type(self, dt: D.DType, shape) -> ir.RankedTensorType:
        return ir.RankedTensorType.get(list(shape), self.elem_type(dt))

    def like(self, value_or_type, shape) -> ir.RankedTensorType:
        """The tensor type of `shape` with the element type of a value or type."""
        t = value_or_type.type if isinstance(value_or_type, ir.Value) else value_or_type
        return ir.RankedTensorType.get(list(shape), ir.RankedTensorType(t).element_type)

    def ir_type(self, xtype):
        """The MLIR tensor type of a df (xDSL) type; a variable is its value's type. Cached
        by identity (the importer shares type objects; hashing an xDSL type is slow), the
        entry holding the type so that its id stays its own."""
        hit = self._types.get(id(xtype))
        if hit is not None and hit[0] is xtype:
            return hit[1]
        tt = from_xdsl_type(xtype.value_type if isinstance(xtype, ResourceType) else xtype)
        if tt.shape is None or None in tt.shape:
            raise UnimplementedError(None, None, f"XLA needs static shapes, got {tt}")
        t = self.tensor_type(tt.dtype, tt.shape)
        self._types[id(xtype)] = (xtype, t)
        return t

    def result_types(self, op) -> list:
        """The MLIR types of a df op's results (its token left out)."""
        return [self.ir_type(r.type) for r in op.results
                if not isinstance(r.type, TokenType)]

    def result_type(self, op, i: int = 0):
        return self.result_types(op)[i]

    def tt(self, value):
        """The df TT of an xDSL value."""
        return from_xdsl_type(value.type)

    def shape(self, value) -> list:
        return list(ir.RankedTensorType(value.type).shape)

    def rank(self, value) -> int:
        return ir.RankedTensorType(value.type).rank

    def dtype(self, value) -> D.DType:
        return dtype_of_elem(ir.RankedTensorType(value.type).element_type)

    def is_empty(self, value_or_type) -> bool:
        t = value_or_type.type if isinstance(value_or_type, ir.Value) else value_or_type
        return 0 in ir.RankedTensorType(t).shape

    # --- attributes -----------------------------------------------------------------------
    @staticmethod
    def i64s(values) -> ir.DenseI64ArrayAttr:
        return ir.DenseI64ArrayAttr.get([int(v) for v in values])

    @staticmethod
    def i64(value: int) -> ir.IntegerAttr:
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))

    @staticmethod
    def pads(pairs) -> ir.DenseIntElementsAttr:
        """A window op's padding attribute from (before, after) pairs, one per dim."""
        return ir.DenseIntElementsAttr.get(np.asarray(pairs, dtype=np.int64).reshape(-1, 2))

    # --- constants ------------------------------------------------------------------------
    def constant(self, array, dtype: D.DType | None = None):
        return ir_constant(np.asarray(array, dtype=None if dtype is None else dtype.np))

    def scalar(self, value, like):
        """A rank-0 constant with the element type of the value `like`."""
        return self.constant(np.asarray(value, dtype=self.dtype(like).np))

    def splat(self, value, ty):
        """A tensor of type `ty` filled with the Python scalar `value`."""
        rt = ir.RankedTensorType(ty)
        scalar = self.constant(np.asarray(value, dtype=dtype_of_elem(rt.element_type).np))
        if not rt.shape:
            return scalar
        return hlo.broadcast_in_dim(ty, scalar, self.i64s(()))

    def zeros(self, ty):
        return self.splat(0, ty)

    # --- conversions ----------------------------------------------------------------------
    def convert(self, x, dt: D.DType):
        """`x` as element type `dt` (unchanged when it already is)."""
        if self.dtype(x) is dt:
            return x
        return hlo.convert(self.tensor_type(dt, self.shape(x)), x)

    def widen(self, x):
        """`x` in its compute type (float32 for half floats) and a function that rounds a
        result back to `x`'s type once."""
        dt = self.dtype(x)
        wide = D.compute_dtype(dt)
        if wide is dt:
            return x, lambda y: y
        return self.convert(x, wide), lambda y: self.convert(y, dt)

    # --- shapes ---------------------------------------------------------------------------
    def broadcast(self, x, ty):
        """NumPy-style broadcast of `x` to the shape of `ty` (shapes right-aligned; the
        element type stays `x`'s)."""
        xt = x.type
        if xt == ty:
            return x
        src, dst = ir.RankedTensorType(xt), ir.RankedTensorType(ty)
        if src.shape == dst.shape:
            return x
        offset = dst.rank - src.rank
        return hlo.broadcast_in_dim(ir.RankedTensorType.get(dst.shape, src.element_type), x,
                                    self.i64s(range(offset, dst.rank)))

    def spread(self, x, shape, dims):
        """broadcast_in_dim of `x` to `shape`, x's dims placed at `dims`."""
        return hlo.broadcast_in_dim(self.like(x, shape), x, self.i64s(dims))

    def reshape(self, x, shape):
        return hlo.reshape(self.like(x, shape), x)

    def slice(self, x, start, limit, strides=None):
        return hlo.slice(x, self.i64s(start), self.i64s(limit),
                         self.i64s(strides if strides is not None else [1] * len(start)))

    def slice_dim(self, x, axis: int, lo: int, hi: int):
        """x[..., lo:hi, ...] along `axis`."""
        shape = self.shape(x)
        start, limit = [0] * len(shape), list(shape)
        start[axis], limit[axis] = lo, hi
        return self.slice(x, start, limit)

    def iota(self, ty, dim: int):
        return hlo.iota(ty, self.i64(dim))

    # --- comparisons and reductions -------------------------------------------------------
    def compare(self, x, y, direction: str):
        """stablehlo.compare with the comparison type of the operands' element type."""
        dt = self.dtype(x)
        kind = "FLOAT" if dt.is_floating or dt.is_complex else (
            "SIGNED" if dt.kind == "i" else "UNSIGNED")
        return hlo.compare(x, y, hlo.ComparisonDirectionAttr.get(direction),
                           compare_type=hlo.ComparisonTypeAttr.get(kind))

    def body(self, region, scalar_types, build):
        """Fill a reduction-like op's `region` with one block over `scalar_types` whose
        results are `build(*block arguments)` (a value or a list of values)."""
        block = region.blocks.append(*scalar_types)
        with ir.InsertionPoint(block):
            out = build(*block.arguments)
            hlo.return_(list(out) if isinstance(out, (list, tuple)) else [out])

    def reduce(self, x, dims, kind: str, init=None):
        """stablehlo.reduce of `x` over `dims` with the monoid `kind` (add/mul/max/min/and/
        or), starting from `init` (its identity by default); the result drops `dims`."""
        dims = sorted(dims)
        if not dims:
            return x
        dt = self.dtype(x)
        shape = self.shape(x)
        start = identity(dt, kind) if init is None else init
        red = hlo.ReduceOp([self.like(x, [d for i, d in enumerate(shape) if i not in dims])],
                           [x], [self.constant(np.asarray(start, dtype=dt.np))],
                           self.i64s(dims))
        scalar = self.like(x, ())
        self.body(red.body, (scalar, scalar), COMBINE[kind])
        return red.result

    def reduce_window(self, x, out_shape, kind: str, dims, strides, padding=None, init=None,
                      combine=None):
        """stablehlo.reduce_window of `x` with windows `dims` and `strides`, (before, after)
        `padding` per dim, combining with `kind` (or the scalar function `combine`)."""
        dt = self.dtype(x)
        start = identity(dt, kind) if init is None else init
        rw = hlo.ReduceWindowOp([self.like(x, out_shape)], [x],
                                [self.constant(np.asarray(start, dtype=dt.np))],
                                self.i64s(dims), window_strides=self.i64s(strides),
                                padding=None if padding is None else self.pads(padding))
        scalar = self.like(x, ())
        self.body(rw.body, (scalar, scalar), combine or COMBINE[kind])
        return rw.result
