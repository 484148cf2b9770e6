"""The lowering driver: walks a (shape-specialized) df module and calls one rule per op.

Variables: each `!df.resource` argument becomes a tensor argument holding the variable's value;
`read_variable` returns the current value and assigns replace it (a `Resource` holds it while
lowering). Variables written anywhere become extra results, aliased to their argument
(`tf.aliasing_output`) so XLA can update weights in place when the runtime donates them.
Regions that write variables carry the new values out as extra results / loop values.
Tokens only ordered side effects in df: in StableHLO the data dependencies carry that order.
Host inputs: an op registered with `register_host_input` (the stateful random ops) gets an
extra argument after the function's own, which the runtime fills before every execution by
calling the op's filler (in program order), so the op sees host state XLA cannot hold.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from jax._src.interpreters import mlir as jmlir
from jax._src.lib.mlir import ir
import jaxlib.mlir.dialects.stablehlo as hlo
from jaxlib.mlir.dialects import func as mfunc
from xdsl.dialects import func

from ...ir import dtypes as D
from ...ir.dialect import (CreateTokenOp, ResourceType, StringType, TokenType, YieldOp,
                           from_xdsl_type)
from ...ir.errors import InvalidArgumentError, UnimplementedError
from ...ir.importer import location_parts

RULES: dict = {}
RULE_GENERATION = 0      # bumped when a rule is replaced: part of the XLA executables' key
HOST_INPUTS: dict = {}   # df op name -> make(ctx, op) -> (ir type, filler () -> host array)

ASSIGN_OPS = ("df.assign_variable", "df.assign_add_variable", "df.assign_sub_variable")


def register_lowering(op):
    """Register `fn(ctx, op, *operands)` as the lowering of a df op (class or name)."""
    name = op if isinstance(op, str) else op.name
    if not name.startswith("df."):
        name = "df." + name

    def deco(fn):
        global RULE_GENERATION
        if name in RULES:   # an override: executables lowered with the old rule are stale
            RULE_GENERATION += 1
        RULES[name] = fn
        return fn
    return deco


def register_host_input(name):
    """Register `make(ctx, op) -> (ir type, filler)` for a df op whose top-level occurrences
    each take an extra argument, filled by `filler()` before every execution."""
    def deco(make):
        HOST_INPUTS["df." + name] = make
        return make
    return deco


@dataclass
class Resource:
    """A variable while lowering: its current value and its argument position."""
    value: object
    arg_index: int
    written: bool = False


@dataclass
class LoweredModule:
    module: object               # ir.Module
    num_results: int             # the function's own results
    written_args: list = field(default_factory=list)   # resource arg index per extra result
    host_inputs: list = field(default_factory=list)    # fillers of the trailing arguments


_ELEM = {
    D.float16: lambda: ir.F16Type.get(), D.bfloat16: lambda: ir.BF16Type.get(),
    D.float32: lambda: ir.F32Type.get(), D.float64: lambda: ir.F64Type.get(),
    D.int8: lambda: ir.IntegerType.get_signless(8),
    D.int16: lambda: ir.IntegerType.get_signless(16),
    D.int32: lambda: ir.IntegerType.get_signless(32),
    D.int64: lambda: ir.IntegerType.get_signless(64),
    D.uint8: lambda: ir.IntegerType.get_unsigned(8),
    D.bool_: lambda: ir.IntegerType.get_signless(1),
    D.complex64: lambda: ir.ComplexType.get(ir.F32Type.get()),
    D.complex128: lambda: ir.ComplexType.get(ir.F64Type.get()),
}


class LoweringContext:
    """State of one lowering plus the helpers rules share."""

    def __init__(self, fname: str):
        self.fname = fname
        self.mlir = jmlir.make_ir_context()
        self.env: dict = {}
        self.host_inputs: dict = {}    # op -> its host-input argument
        self._types: dict = {}
        self._elems: dict = {}

    # --- types --------------------------------------------------------------------------
    def elem_type(self, dt: D.DType):
        t = self._elems.get(dt)
        if t is None:
            t = self._elems[dt] = _ELEM[dt]()
        return t

    def tensor_type(self, dt: D.DType, shape) -> ir.RankedTensorType:
        return ir.RankedTensorType.get(list(shape), self.elem_type(dt))

    def ir_type(self, xtype):
        t = self._types.get(xtype)
        if t is None:
            if isinstance(xtype, ResourceType):
                xtype = xtype.value_type
            tt = from_xdsl_type(xtype)
            if tt.shape is None or None in tt.shape:
                raise UnimplementedError(None, None, f"XLA needs static shapes, got {tt}")
            t = self._types[xtype] = self.tensor_type(tt.dtype, tt.shape)
        return t

    def result_types(self, op) -> list:
        return [self.ir_type(r.type) for r in op.results if not isinstance(r.type, TokenType)]

    def result_type(self, op, i: int = 0):
        return self.result_types(op)[i]

    def tt(self, value):
        """The df TT of an xDSL value."""
        return from_xdsl_type(value.type)

    # --- values -------------------------------------------------------------------------
    def constant(self, array, dtype: D.DType | None = None):
        arr = np.asarray(array, dtype=None if dtype is None else dtype.np)
        return jmlir.ir_constant(arr)

    def splat(self, value, ty):
        """A tensor of type `ty` filled with the Python scalar `value`."""
        rt = ir.RankedTensorType(ty)
        dt = _dtype_of_elem(rt.element_type)
        scalar = self.constant(np.asarray(value, dtype=dt.np))
        if not rt.shape:
            return scalar
        return hlo.broadcast_in_dim(ty, scalar, ir.DenseI64ArrayAttr.get([]))

    def broadcast(self, x, ty):
        """NumPy-style broadcast of `x` to the type `ty` (shapes right-aligned)."""
        if x.type == ty:
            return x
        src = ir.RankedTensorType(x.type)
        dst = ir.RankedTensorType(ty)
        if src.shape == dst.shape:
            return x
        offset = len(dst.shape) - len(src.shape)
        dims = list(range(offset, len(dst.shape)))
        out_t = ir.RankedTensorType.get(dst.shape, src.element_type)
        return hlo.broadcast_in_dim(out_t, x, ir.DenseI64ArrayAttr.get(dims))

    def shape(self, value) -> list:
        return list(ir.RankedTensorType(value.type).shape)

    def dtype(self, value) -> D.DType:
        return _dtype_of_elem(ir.RankedTensorType(value.type).element_type)

    # --- walking ------------------------------------------------------------------------
    def location(self, op):
        parts = location_parts(op.location)
        if parts is None:
            return ir.Location.unknown()
        label, file, line, column = parts
        if file is None:
            return ir.Location.name(label)
        return ir.Location.name(label, childLoc=ir.Location.file(file, line, column))

    def lower_block(self, block):
        """Lower every op of `block` but its terminator; returns the terminator's values."""
        env = self.env
        for op in block.ops:
            if isinstance(op, (func.ReturnOp, YieldOp)):
                return [env[v] for v in op.operands if not isinstance(v.type, TokenType)]
            if isinstance(op, CreateTokenOp):
                env[op.results[0]] = None
                continue
            rule = RULES.get(op.name)
            if rule is None:
                raise UnimplementedError(None, op.name, f"jit_compile=True: no StableHLO "
                                         f"lowering for {op.name} (at {_where(op)}); run "
                                         f"without jit_compile or register one with "
                                         f"register_lowering")
            operands = [env[v] for v in op.operands if not isinstance(v.type, TokenType)]
            with self.location(op):
                try:
                    outs = rule(self, op, *operands)
                except ir.MLIRError as e:
                    raise UnimplementedError(None, op.name, f"lowering {op.name} at "
                                             f"{_where(op)} failed: {e}") from None
            if outs is None:
                outs = []
            elif not isinstance(outs, (list, tuple)):
                outs = [outs]
            it = iter(outs)
            for r in op.results:
                env[r] = None if isinstance(r.type, TokenType) else next(it)
        return []

    def written_resources(self, region_or_op) -> list:
        """The Resources (from the env) that ops nested in a region op assign."""
        found = []
        for inner in region_or_op.walk():
            if inner.name in ASSIGN_OPS:
                res = self.env.get(inner.operands[0])
                if isinstance(res, Resource) and res not in found:
                    found.append(res)
        return found


def _where(op) -> str:
    parts = location_parts(op.location)
    if parts is None:
        return "unknown location"
    label, file, line, _ = parts
    return f"{label}, {file}:{line}" if file else label


def refuse_strings(fname: str, op):
    """TF's error for a string tensor under jit_compile (its class and opening words)."""
    what = f"{op.name} at {_where(op)}"
    if op.name == "func.return":  # name the op that made the string result, where there is one
        made = [v.owner for v in op.operands if _is_string(v) and hasattr(v.owner, "location")]
        what = (f"the function's results ({made[0].name} at {_where(made[0])})" if made else
                "the function's results (a string argument)")
    raise InvalidArgumentError(None, op.name, f"Detected unsupported operations when trying "
                               f"to compile graph {fname} on XLA_CPU_JIT: {what} hold string "
                               f"tensors, which XLA has no type for; call the function "
                               f"without jit_compile")


def _is_string(value) -> bool:
    return isinstance(getattr(value.type, "element_type", None), StringType)


def _check_static(fn, fname: str):
    """XLA compiles static shapes of numbers only: name the first op that touches a string
    tensor, or whose result shape depends on data."""
    for op in fn.walk():  # a string constant is named by the op that uses it
        if any(map(_is_string, op.operands)) or (
                op.name != "df.const" and any(map(_is_string, op.results))):
            refuse_strings(fname, op)
        for r in op.results:
            tt = from_xdsl_type(r.type)
            if tt is None:
                continue
            shape = getattr(tt, "value", tt).shape
            if shape is None or None in shape:
                raise UnimplementedError(None, op.name, f"jit_compile=True: {op.name} at "
                                         f"{_where(op)} produces {tt}, a shape known only at run "
                                         f"time; XLA needs static shapes (for `where`, use the "
                                         f"3-argument form)")


def _dtype_of_elem(elem) -> D.DType:
    s = str(elem)
    for dt in D.ALL + D.COMPLEX:
        if dt.mlir == s:
            return dt
    raise UnimplementedError(None, None, f"unsupported element type {s}")


def lower_module(module, fname: str, donate: bool = True) -> LoweredModule:
    """Lower the df module's entry function to a StableHLO `@main`."""
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    block = fn.body.block
    _check_static(fn, fname)
    ctx = LoweringContext(fname)
    with ctx.mlir, ir.Location.unknown():
        m = ir.Module.create()
        arg_types = [ctx.ir_type(a.type) for a in block.args]
        ret = block.last_op
        res_types = [ctx.ir_type(v.type) for v in ret.operands]
        # Which variables does the function write? Their new values become extra results.
        resource_args = [i for i, a in enumerate(block.args)
                         if isinstance(a.type, ResourceType)]
        # (uses inside regions are uses of the argument too: regions capture from above)
        written = [i for i in resource_args
                   if any(use.operation.name in ASSIGN_OPS for use in block.args[i].uses)]
        res_types += [arg_types[i] for i in written]
        host_ops, fillers = [], []
        for op in block.ops:
            make = HOST_INPUTS.get(op.name)
            if make is not None:
                ty, fill = make(ctx, op)
                host_ops.append(op)
                arg_types.append(ty)
                fillers.append(fill)
        with ir.InsertionPoint(m.body):
            f = mfunc.FuncOp("main", ir.FunctionType.get(arg_types, res_types))
            f.attributes["sym_visibility"] = ir.StringAttr.get("public")
            if donate and written:
                i32 = ir.IntegerType.get_signless(32)
                attrs = [ir.DictAttr.get({}) for _ in arg_types]
                for k, i in enumerate(written):
                    attrs[i] = ir.DictAttr.get(
                        {"tf.aliasing_output": ir.IntegerAttr.get(i32, len(ret.operands) + k)})
                f.arg_attrs = ir.ArrayAttr.get(attrs)
            entry = f.add_entry_block()
        with ir.InsertionPoint(entry):
            resources = {}
            for i, (a, v) in enumerate(zip(block.args, entry.arguments)):
                if isinstance(a.type, ResourceType):
                    resources[i] = ctx.env[a] = Resource(v, i)
                else:
                    ctx.env[a] = v
            ctx.host_inputs = dict(zip(host_ops, entry.arguments[len(block.args):]))
            outs = ctx.lower_block(block)
            outs += [resources[i].value for i in written]
            mfunc.ReturnOp(outs)
        # Run the StableHLO verifiers before XLA sees the module: a malformed op must be a
        # Python exception here, not a CHECK failure that aborts the process inside XLA.
        try:
            m.operation.verify()
        except ir.MLIRError as e:
            raise UnimplementedError(None, None, f"jit_compile=True: the StableHLO lowered for "
                                     f"{fname} does not verify (a lowering-rule bug): "
                                     f"{e}") from None
    return LoweredModule(m, len(ret.operands), written, fillers)
