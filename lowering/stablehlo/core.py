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

Rules: `rule(ctx, op, *operands, **attrs)`. Its keyword-only parameters name the attributes it
receives (`**attrs` receives all), decoded once per op, with axes made non-negative
(`ir.axes`). What a rule returns is checked against the op's results (count, then each MLIR
type): a mismatch raises InternalError naming the rule, the op, both type lists and the user's
line, where MLIR would fail later at `func.return` without naming the rule.
Locations: every op is built under `loc(fused["<df op>:", "<function>/<node>", file:line:col])`,
the form XLA turns into TF's HLO `metadata={op_type op_name source_file source_line}`.
"""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

from xdsl.dialects import func

from ...ir.axes import axis_source, nonnegative_axes
from ...ir.dialect import (CreateTokenOp, ResourceType, StringType, TokenType, YieldOp,
                           decode_attr, from_xdsl_type)
from ...ir.errors import InternalError, InvalidArgumentError, UnimplementedError
from ...ir.importer import describe_location, location_parts
from ...ir.registry import OPS, REQUIRED
from ...runtime.jax_internals import hlo, ir, make_ir_context, mlir_func
from .. import rule_generation
from .builders import Builders

RULES: dict = {}
HOST_INPUTS: dict = {}   # df op name -> make(ctx, op) -> (ir type, filler () -> host array)
HOST_CALLBACK_OPS: set = set()   # df ops lowered to ordered host callbacks (logging.py)
_CALLS: dict = {}        # df op name -> its _RuleCall, made on first use

ASSIGN_OPS = ("df.assign_variable", "df.assign_add_variable", "df.assign_sub_variable")


def register_lowering(op):
    """Register `fn(ctx, op, *operands, **attrs)` as the lowering of a df op (class or name);
    keyword-only parameters name the attributes `fn` receives. The one place rules are
    (re)registered."""
    name = op if isinstance(op, str) else op.name
    if not name.startswith("df."):
        name = "df." + name

    def deco(fn):
        if name in RULES:   # an override: executables lowered with the old rule are stale
            rule_generation.bump()
        RULES[name] = fn
        _CALLS.pop(name, None)
        return fn
    return deco


def register_host_input(name):
    """Register `make(ctx, op) -> (ir type, filler)` for a df op whose top-level occurrences
    each take an extra argument, filled by `filler()` before every execution."""
    def deco(make):
        HOST_INPUTS["df." + name] = make
        return make
    return deco


def rule_name(rule) -> str:
    return f"{getattr(rule, '__module__', '?')}.{getattr(rule, '__qualname__', repr(rule))}"


class _RuleCall:
    """A rule with the attributes it takes: (name, kind, axis source) each, from its
    signature and the op's declaration, worked out once per op name."""

    __slots__ = ("rule", "attrs", "defaults")

    def __init__(self, name: str, rule):
        opdef = OPS.get(name[3:])
        declared = opdef.attrs if opdef is not None else {}
        params = inspect.signature(rule).parameters.values()
        if any(p.kind is p.VAR_KEYWORD for p in params):
            wanted = list(declared)
        else:
            wanted = [p.name for p in params if p.kind is p.KEYWORD_ONLY]
        unknown = [w for w in wanted if w not in declared]
        if unknown:
            raise TypeError(f"lowering rule {rule_name(rule)} for {name} takes attribute(s) "
                            f"{unknown}, which {name} does not have; its attributes: "
                            f"{list(declared)}")
        self.rule = rule
        self.attrs = tuple((a, declared[a].kind, axis_source(name[3:], a)) for a in wanted)
        # an absent attribute is its declared default, as DfOp.python_attrs reads it (None
        # where it has none: a value known only at run time)
        self.defaults = {a: None if declared[a].default is REQUIRED else declared[a].default
                         for a in wanted}

    def attributes(self, op) -> dict:
        """The op's attributes this rule takes, decoded (absent ones: their defaults)."""
        out = {}
        get = op.attributes.get
        for name, kind, source in self.attrs:
            a = get(name)
            value = self.defaults[name] if a is None else decode_attr(a, kind)
            out[name] = value if source is None else nonnegative_axes(op, source, value)
        return out


def _rule_call(name: str, op=None) -> _RuleCall:
    call = _CALLS.get(name)
    if call is None:
        rule = RULES.get(name)
        if rule is None:
            where = "" if op is None else f" (at {_where(op)})"
            raise UnimplementedError(None, name, f"jit_compile=True: no StableHLO lowering "
                                     f"for {name}{where}; run without jit_compile or "
                                     f"register one with register_lowering")
        call = _CALLS[name] = _RuleCall(name, rule)
    return call


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
    host_callbacks: list = field(default_factory=list)  # Python callables, by custom-call index
    failures: list = field(default_factory=list)       # asserts failed in the current run


class LoweringContext(Builders):
    """One module being lowered: its MLIR context, the value environment, and (inherited
    from `Builders`) the builders rules share."""

    def __init__(self, fname: str):
        self.fname = fname
        self.mlir = make_ir_context()
        self.env: dict = {}
        self.host_inputs: dict = {}    # op -> its host-input argument
        self.host_callbacks: list = []  # what print/assert call on the host (logging.py)
        # The token ordering host callbacks: a Resource, so regions carry it like a variable
        self.callback_chain = Resource(None, -1)
        self.failures: list = []
        self._types: dict = {}
        self._elems: dict = {}
        self._op_types: dict = {}      # df op name -> its `"<name>:"` location
        self._sources: dict = {}       # (file, line, column) -> its location

    # --- walking ------------------------------------------------------------------------
    def location(self, op):
        """`fused["<df op>:", "<function>/<node>", file:line:col]` (see the module doc)."""
        kind = self._op_types.get(op.name)
        if kind is None:
            kind = self._op_types[op.name] = ir.Location.name(op.name[3:] + ":")
        parts = location_parts(op.location)
        if parts is None:
            return kind
        label, file, line, column = parts
        if file is None:
            return ir.Location.fused([kind, ir.Location.name(label)])
        source = self._sources.get((file, line, column))
        if source is None:   # many ops share a line
            source = self._sources[file, line, column] = ir.Location.file(file, line, column)
        return ir.Location.fused([kind, ir.Location.name(label), source])

    def lower_block(self, block):
        """Lower every op of `block` but its terminator; returns the terminator's values."""
        env = self.env
        calls = _CALLS
        for op in block.ops:
            call = calls.get(op.name)
            if call is None:    # a terminator, a token, or a rule not called yet
                if isinstance(op, (func.ReturnOp, YieldOp)):
                    return [e for v in op.operands if (e := env[v]) is not None]
                if isinstance(op, CreateTokenOp):
                    env[op.results[0]] = None
                    continue
                call = _rule_call(op.name, op)
            operands = [e for v in op.operands if (e := env[v]) is not None]   # no tokens
            with self.location(op):
                try:
                    if call.attrs:
                        outs = call.rule(self, op, *operands, **call.attributes(op))
                    else:
                        outs = call.rule(self, op, *operands)
                except ir.MLIRError as e:
                    raise UnimplementedError(None, op.name, f"lowering {op.name} at "
                                             f"{_where(op)} failed: {e}") from None
            results = op.results
            if len(results) == 1 and isinstance(outs, ir.Value) and \
                    outs.type == self.ir_type(results[0].type):
                env[results[0]] = outs          # the common case, checked
            else:
                self._bind(op, call.rule, outs)
        return []

    def lower_as(self, name: str, op, *operands, **attrs):
        """What the rule of df op `name` builds for `operands` and `attrs`, the result types
        being `op`'s (a fused op lowers its parts this way)."""
        call = _rule_call("df." + name)
        return call.rule(self, op, *operands, **{a[0]: attrs[a[0]] for a in call.attrs})

    def _bind(self, op, rule, outs):
        """Check what `rule` returned for `op` against its results and bind them."""
        results = [r for r in op.results if not isinstance(r.type, TokenType)]
        if outs is None:
            if results:
                self._wrong_results(op, rule, results, outs)
            outs = ()
        elif not isinstance(outs, (list, tuple)):
            outs = (outs,)
        if len(outs) != len(results):
            self._wrong_results(op, rule, results, outs)
        env = self.env
        for r, v in zip(results, outs):
            fits = isinstance(v, Resource) if isinstance(r.type, ResourceType) else \
                isinstance(v, ir.Value) and v.type == self.ir_type(r.type)
            if not fits:
                self._wrong_results(op, rule, results, outs)
            env[r] = v
        for r in op.results:
            if isinstance(r.type, TokenType):
                env[r] = None

    def _wrong_results(self, op, rule, results, outs):
        expected = ", ".join(str(self.ir_type(r.type)) for r in results) or "nothing"
        if outs is None:
            got = "None"
        else:
            got = ", ".join(str(v.type) if isinstance(v, ir.Value) else type(v).__name__
                            for v in (outs if isinstance(outs, (list, tuple)) else [outs]))
            got = f"({got})"
        raise InternalError(None, op.name, f"jit_compile=True: the lowering rule "
                            f"{rule_name(rule)} for {op.name} at {_where(op)} returned {got}; "
                            f"expected {len(results)} value(s) of type(s) ({expected})")

    def written_resources(self, region_or_op) -> list:
        """The Resources (from the env) that ops nested in a region op assign, and the host
        callbacks' token chain when they call back."""
        found = []
        for inner in region_or_op.walk():
            if inner.name in ASSIGN_OPS:
                res = self.env.get(inner.operands[0])
                if isinstance(res, Resource) and res not in found:
                    found.append(res)
            elif inner.name in HOST_CALLBACK_OPS and self.callback_chain not in found:
                if self.callback_chain.value is None:
                    self.callback_chain.value = hlo.after_all([])
                found.append(self.callback_chain)
        return found


def _where(op) -> str:
    return describe_location(op.location)


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


def refuse_without_kernel(fname: str, op, tf_name: str):
    """TF's error for an op its XLA has no kernel for (its class and opening words)."""
    raise InvalidArgumentError(None, op.name, f"Detected unsupported operations when trying "
                               f"to compile graph {fname} on XLA_CPU_JIT: {tf_name} (No "
                               f"registered '{tf_name}' OpKernel for XLA_CPU_JIT devices) at "
                               f"{_where(op)}; call the function without jit_compile")


def _is_string(value) -> bool:
    return isinstance(getattr(value.type, "element_type", None), StringType)


_STATIC, _STRING, _DYNAMIC = range(3)


def _kind_of(xtype):
    """Whether values of a df type can be compiled: static numbers, strings, or a shape known
    only at run time."""
    if isinstance(getattr(xtype, "element_type", None), StringType):
        return _STRING
    tt = from_xdsl_type(xtype)
    if tt is None:
        return _STATIC
    shape = getattr(tt, "value", tt).shape
    return _DYNAMIC if shape is None or None in shape else _STATIC


def _check_static(fn, fname: str):
    """XLA compiles static shapes of numbers only: name the first op that touches a string
    tensor, or whose result shape depends on data. Each distinct type is classified once
    (by identity: hashing xDSL types is slow, and the importer shares them), and operands are
    looked at only once some value is a string."""
    kinds: dict = {}   # id -> (type, kind)

    def kind(xtype):
        hit = kinds.get(id(xtype))
        if hit is None or hit[0] is not xtype:
            hit = kinds[id(xtype)] = (xtype, _kind_of(xtype))
        return hit[1]
    strings = any(kind(a.type) is _STRING for a in fn.body.block.args)
    for op in fn.walk():   # (a string is made before it is used: by then `strings` is set)
        if strings and any(kind(v.type) is _STRING for v in op.operands):
            refuse_strings(fname, op)
        for r in op.results:
            k = kind(r.type)
            if k is _STRING:
                if op.name != "df.const":   # a string constant is named by its user
                    refuse_strings(fname, op)
                strings = True
            elif k is _DYNAMIC:
                raise UnimplementedError(None, op.name, f"jit_compile=True: {op.name} at "
                                         f"{_where(op)} produces {from_xdsl_type(r.type)}, a "
                                         f"shape known only at run time; XLA needs static "
                                         f"shapes (for `where`, use the 3-argument form)")


def module_name(fname: str) -> str:
    """The symbol name of the lowered module, `jit_<function>` as JAX names its modules (an
    identifier: tools that compile a module by name need one)."""
    return "jit_" + re.sub(r"\W", "_", fname)


def lower_module(module, fname: str, donate: bool = True) -> LoweredModule:
    """Lower the df module's entry function to a StableHLO `@main`."""
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    block = fn.body.block
    _check_static(fn, fname)
    ctx = LoweringContext(fname)
    with ctx.mlir, ir.Location.unknown():
        m = ir.Module.create()
        m.operation.attributes["sym_name"] = ir.StringAttr.get(module_name(fname))
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
            f = mlir_func.FuncOp("main", ir.FunctionType.get(arg_types, res_types))
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
            mlir_func.ReturnOp(outs)
        # Run the StableHLO verifiers before XLA sees the module: a malformed op must be a
        # Python exception here, not a CHECK failure that aborts the process inside XLA.
        try:
            m.operation.verify()
        except ir.MLIRError as e:
            raise UnimplementedError(None, None, f"jit_compile=True: the StableHLO lowered for "
                                     f"{fname} does not verify (a lowering-rule bug): "
                                     f"{e}") from None
    return LoweredModule(m, len(ret.operands), written, fillers, ctx.host_callbacks,
                         ctx.failures)
