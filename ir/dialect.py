"""The `df` ("dataflow") dialect in xDSL, generated from the op registry.

Every registry op becomes one xDSL op class `df.<name>` with variadic operands and results and
its attributes as optional attributes; its verifier re-runs the registry's inference, so the
declaration in `ir/ops/` stays the single source of truth. Structural ops are written here:
`df.cond`, `df.case`, `df.while` (regions), `df.yield` and `df.create_token`.

Types: builtin tensors (`tensor<?x784xf32>`, `tensor<*xf32>` for unknown rank),
`!df.token` for side-effect order, and `!df.resource<tensor<...>>` for variable handles.
Stateful ops take a token as their last operand and return a new one as their last result.

Custom assembly (all ops share it):
    %2 = df.add %0, %1 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32> loc("f/add"("x.py":3:0))
"""
from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import (DYNAMIC_INDEX, ArrayAttr, BFloat16Type, BytesAttr,
                                   ComplexType, DenseArrayBase,
                                   DenseIntOrFPElementsAttr, Float16Type, Float32Type,
                                   Float64Type, FloatAttr, IntegerAttr, IntegerType, Signedness,
                                   StringAttr, TensorType, UnrankedTensorType, f64, i1, i64)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (IRDLOperation, irdl_attr_definition, irdl_op_definition, lazy_traits_def,
                       opt_attr_def, operand_def, region_def, result_def, traits_def,
                       var_operand_def, var_region_def, var_result_def)
from xdsl.traits import IsTerminator, Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from . import dtypes as D
from .registry import OPS, REQUIRED, TT, InferenceError, OpDef, ResourceTT, infer_types


# --- types ------------------------------------------------------------------------------
@irdl_attr_definition
class TokenType(ParametrizedAttribute, TypeAttribute):
    """Orders side effects: each stateful op consumes one token and produces the next."""
    name = "df.token"


@irdl_attr_definition
class ResourceType(ParametrizedAttribute, TypeAttribute):
    """A variable handle; the parameter is the variable's value type."""
    name = "df.resource"
    value_type: Attribute


@irdl_attr_definition
class StringType(ParametrizedAttribute, TypeAttribute):
    """The element type of `tf.string` tensors (`tensor<2x!df.string>`): byte strings, which
    only the executor runs (XLA has no string type)."""
    name = "df.string"


@irdl_attr_definition
class StringsAttr(ParametrizedAttribute):
    """A string tensor's value (a `const` of dtype string): its shape and its elements in
    row-major order, each a bytes literal, so any bytes round-trip through the text form."""
    name = "df.strings"
    shape: DenseArrayBase
    values: ArrayAttr

    @property
    def type(self):
        """The tensor type of the value (as a dense attribute's `type`)."""
        return to_xdsl_type(TT(D.string, tuple(self.shape.get_values())))


TOKEN = TokenType()

_ELEM = {
    D.float16: Float16Type(), D.bfloat16: BFloat16Type(), D.float32: Float32Type(),
    D.float64: Float64Type(), D.int8: IntegerType(8), D.int16: IntegerType(16),
    D.int32: IntegerType(32), D.int64: IntegerType(64),
    D.uint8: IntegerType(8, Signedness.UNSIGNED), D.uint16: IntegerType(16, Signedness.UNSIGNED),
    D.uint32: IntegerType(32, Signedness.UNSIGNED), D.uint64: IntegerType(64, Signedness.UNSIGNED),
    D.bool_: IntegerType(1),
    D.string: StringType(), D.complex64: ComplexType(Float32Type()),
    D.complex128: ComplexType(Float64Type()),
}
_DTYPE = {v: k for k, v in _ELEM.items()}
_TYPE_CACHE: dict = {}


def element_type(dt: D.DType) -> Attribute:
    return _ELEM[dt]


def dtype_of(elem: Attribute) -> D.DType:
    try:
        return _DTYPE[elem]
    except KeyError:
        raise VerifyException(f"df: unsupported element type {elem}") from None


def to_xdsl_type(t) -> Attribute:
    """TT / ResourceTT -> xDSL type (cached: building ParametrizedAttributes is slow)."""
    r = _TYPE_CACHE.get(t)
    if r is None:
        if isinstance(t, ResourceTT):
            r = ResourceType(to_xdsl_type(t.value))
        elif t.shape is None:
            r = UnrankedTensorType(_ELEM[t.dtype])
        else:
            r = TensorType(_ELEM[t.dtype], [DYNAMIC_INDEX if d is None else d for d in t.shape])
        _TYPE_CACHE[t] = r
    return r


def from_xdsl_type(ty: Attribute):
    """xDSL type -> TT / ResourceTT (None for a token)."""
    if isinstance(ty, TokenType):
        return None
    if isinstance(ty, ResourceType):
        return ResourceTT.of(from_xdsl_type(ty.value_type))
    if isinstance(ty, UnrankedTensorType):
        return TT(dtype_of(ty.element_type), None)
    if isinstance(ty, TensorType):
        return TT(dtype_of(ty.element_type),
                  tuple(None if d == DYNAMIC_INDEX else d for d in ty.get_shape()))
    raise VerifyException(f"df: unsupported type {ty}")


# --- attributes ---------------------------------------------------------------------------
# An int list's unknown entry (a shape attribute's None dim, a partial `tensor_attrs` value);
# -1 is a real value of several int attributes (reshape's inferred size).
UNKNOWN_INT = -(2 ** 63)


def encode_attr(value) -> Attribute | None:
    """A registry attribute value -> an xDSL attribute (None means "absent")."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        return IntegerAttr(int(bool(value)), i1)
    if isinstance(value, (int, np.integer)):
        return IntegerAttr(int(value), i64)
    if isinstance(value, (float, np.floating)):
        return FloatAttr(float(value), f64)
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, D.DType):
        return _ELEM[value]
    if isinstance(value, np.ndarray):
        dt = D.from_numpy(value.dtype)
        if dt is D.string:
            return StringsAttr(DenseArrayBase.from_list(i64, value.shape),
                               ArrayAttr([BytesAttr(b) for b in value.reshape(-1)]))
        ty = TensorType(_ELEM[dt], value.shape)
        flat = value.reshape(-1)
        if dt.kind == "c":  # little-endian (re, im) pairs, the layout MLIR stores
            return DenseIntOrFPElementsAttr(ty, BytesAttr(
                np.ascontiguousarray(value, dt.np.newbyteorder("<")).tobytes()))
        if dt.kind == "b":
            return DenseIntOrFPElementsAttr.from_list(ty, [int(x) for x in flat])
        if dt.kind == "f":
            return DenseIntOrFPElementsAttr.from_list(ty, [float(x) for x in flat])
        return DenseIntOrFPElementsAttr.from_list(ty, [int(x) for x in flat])
    if isinstance(value, (tuple, list)):
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) or v is None
               for v in value):
            return DenseArrayBase.from_list(
                i64, [UNKNOWN_INT if v is None else int(v) for v in value])
        if all(isinstance(v, (int, float, np.number)) for v in value):
            return DenseArrayBase.from_list(f64, [float(v) for v in value])
        return ArrayAttr([encode_attr(v) for v in value])
    raise TypeError(f"df: cannot encode attribute value {value!r} of type "
                    f"{type(value).__name__}")


def decode_attr(attr: Attribute, kind: str = "any"):
    """The inverse of `encode_attr`; `kind` (from the registry) picks shapes' None dims."""
    if isinstance(attr, IntegerAttr):
        v = attr.value.data
        return bool(v) if attr.type == i1 else int(v)
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, DenseArrayBase):
        vals = tuple(attr.get_values())
        if kind == "shape":
            return tuple(None if v in (-1, UNKNOWN_INT) else int(v) for v in vals)
        if kind == "ints":
            return tuple(None if v == UNKNOWN_INT else int(v) for v in vals)
        return tuple(float(v) for v in vals) if kind == "floats" else tuple(
            int(v) if isinstance(v, int) else float(v) for v in vals)
    if isinstance(attr, DenseIntOrFPElementsAttr):
        ty = attr.get_type()
        dt = dtype_of(ty.element_type)
        if dt.kind == "c":
            flat = np.frombuffer(attr.data.data, dt.np.newbyteorder("<")).astype(dt.np)
        else:
            flat = np.asarray(attr.get_values(), dtype=dt.np)
        shape = tuple(ty.get_shape())
        if flat.size == 1 and math.prod(shape) != 1:  # a splat stays one element, read-only
            return np.broadcast_to(flat.reshape(()), shape)
        return flat.reshape(shape)
    if isinstance(attr, StringsAttr):
        flat = np.empty(len(attr.values.data), dtype=object)
        flat[:] = [b.data for b in attr.values.data]
        return flat.reshape(tuple(attr.shape.get_values()))
    if isinstance(attr, ArrayAttr):
        return tuple(decode_attr(a) for a in attr.data)
    if attr in _DTYPE:
        return _DTYPE[attr]
    raise TypeError(f"df: cannot decode attribute {attr}")


# --- generated ops ------------------------------------------------------------------------
_FORMAT = "$ins attr-dict `:` functional-type($ins, $outs)"


class DfOp(IRDLOperation):
    """Base of the generated ops; the class attribute `opdef` is the registry declaration."""

    def python_attrs(self) -> dict:
        """Attributes as the registry and kernels take them: an absent one is its declared
        default (None where it has none: a value only known at run time), so a hand-written
        `df.cumsum %x` means axis 0 in every backend, as `apply` does eagerly."""
        out = {}
        for name, adef in self.opdef.attrs.items():
            a = self.attributes.get(name)
            if a is not None:
                out[name] = decode_attr(a, adef.kind)
            else:
                out[name] = None if adef.default is REQUIRED else adef.default
        return out

    def verify_(self):
        opdef = self.opdef
        n_tok = 1 if opdef.stateful else 0
        ins = list(self.operands)
        outs = list(self.results)
        if n_tok:
            if not ins or not isinstance(ins[-1].type, TokenType) or \
                    not outs or not isinstance(outs[-1].type, TokenType):
                raise VerifyException(f"{self.name} is stateful: it takes and returns a "
                                      f"!df.token last")
            ins, outs = ins[:-1], outs[:-1]
        types = [from_xdsl_type(v.type) for v in ins]
        if not opdef.arity_ok(len(types)):
            raise VerifyException(f"{self.name} expects inputs ({', '.join(opdef.inputs)}), "
                                  f"got {len(types)}")
        try:
            expected = infer_types(opdef, types, self.python_attrs())
        except InferenceError as e:
            raise VerifyException(f"{self.name}: {e}") from None
        got = [from_xdsl_type(v.type) for v in outs]
        if len(got) != len(expected) or any(
                g.dtype is not e.dtype or not _shape_compatible(g.shape, e.shape)
                for g, e in zip(got, expected)):
            raise VerifyException(
                f"{self.name}: result types {[str(g) for g in got]} do not match the inferred "
                f"{[str(e) for e in expected]}")


def _shape_compatible(a, b) -> bool:
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


def _class_name(opname: str) -> str:
    return "".join(p.title() for p in opname.split("_")) + "Op"


def _make_op_class(opdef: OpDef):
    ns = {"name": f"df.{opdef.name}", "ins": var_operand_def(), "outs": var_result_def(),
          "assembly_format": _FORMAT,
          "__doc__": opdef.doc or f"`{opdef.name}` from the op registry ({opdef.family})."}
    if not opdef.stateful:
        ns["traits"] = traits_def(Pure())
    for a in opdef.attrs:
        ns[a] = opt_attr_def(Attribute)
    cls = irdl_op_definition(type(_class_name(opdef.name), (DfOp,), ns))
    cls.opdef = opdef  # set after definition: IRDL only accepts declared fields in the body
    return cls


class _OpClasses(dict):
    """The df op class of each registry op. An op registered after import (from user code)
    gets its class on first use, and the df dialect grows with it, so tracing, passes, both
    backends and `flowjit-opt` know it without a restart."""

    def __missing__(self, name: str):
        cls = self[name] = _make_op_class(OPS[name])  # KeyError: not a registry op
        DF._operations.append(cls)
        return cls

    def complete(self):
        """A class for every op registered so far (before a parse needs them by name)."""
        for name in OPS:
            self[name]  # noqa: B018 - creates the missing ones


OP_CLASSES = _OpClasses({name: _make_op_class(d) for name, d in OPS.items()})


# --- structural ops -------------------------------------------------------------------------
@irdl_op_definition
class CreateTokenOp(IRDLOperation):
    """The first token of a function body."""
    name = "df.create_token"
    tok = result_def(TokenType)
    assembly_format = "attr-dict `:` type($tok)"


@irdl_op_definition
class CondOp(IRDLOperation):
    """`tf.cond`: runs one of two single-block regions; values from above are used directly."""
    name = "df.cond"
    pred = operand_def()
    res = var_result_def()
    then_region = region_def("single_block")
    else_region = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())
    assembly_format = ("$pred attr-dict `:` functional-type($pred, $res) $then_region "
                       "`else` $else_region")


@irdl_op_definition
class CaseOp(IRDLOperation):
    """`tf.switch_case`: an int32 index picks a region (the last one for out-of-range)."""
    name = "df.case"
    index = operand_def()
    res = var_result_def()
    branches = var_region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())
    assembly_format = "$index attr-dict `:` functional-type($index, $res) $branches"


@irdl_op_definition
class WhileOp(IRDLOperation):
    """`tf.while_loop`: `cond` and `body` regions take the loop values as block arguments."""
    name = "df.while"
    inits = var_operand_def()
    res = var_result_def()
    cond_region = region_def("single_block")
    body_region = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())
    assembly_format = ("`(` $inits `)` attr-dict `:` functional-type($inits, $res) "
                       "`cond` $cond_region `body` $body_region")

    def verify_(self):
        n = len(self.inits)
        for r, what in ((self.cond_region, "cond"), (self.body_region, "body")):
            if len(r.block.args) != n:
                raise VerifyException(f"df.while: {what} region takes {len(r.block.args)} "
                                      f"arguments for {n} loop values")


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Terminates the regions of df.cond / df.case / df.while."""
    name = "df.yield"
    vals = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), Pure()))
    assembly_format = "($vals^ `:` type($vals))? attr-dict"


STRUCTURAL_OPS = [CreateTokenOp, CondOp, CaseOp, WhileOp, YieldOp]
DF = Dialect("df", list(OP_CLASSES.values()) + STRUCTURAL_OPS,
             [TokenType, ResourceType, StringType, StringsAttr])


def context():
    """An xDSL context with builtin, func and df loaded (for parsing dumps)."""
    from xdsl.context import Context
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.func import Func

    OP_CLASSES.complete()
    ctx = Context()
    for d in (Builtin, Func, DF):
        ctx.load_dialect(d)
    return ctx
