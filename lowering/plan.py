"""df module -> executor `Plan`: slots assigned, kernels resolved, regions nested.

Built once per ConcreteFunction (after the pass pipeline); running it touches no xDSL.
"""
from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType

from ..ir.dialect import CaseOp, CondOp, CreateTokenOp, DfOp, TokenType, WhileOp, YieldOp, \
    from_xdsl_type
from ..ir.errors import UnimplementedError
from ..ir.importer import describe_location
from ..runtime.executor import Plan
from ..runtime.steps import CASE, COND, MANY, NONE, ONE, WHILE, Loop, Step, StepLabel
from ..runtime.kernels import KERNELS, bind_attr_operands


def build_plan(module: ModuleOp, name: str | None = None) -> Plan:
    fn = _entry(module, name)
    b = _Builder()
    block = fn.body.block
    arg_slots = tuple(b.slot(a) for a in block.args)
    steps = b.steps_for(block)
    ret = block.last_op
    out_slots = tuple(b.slots[v] for v in ret.operands)
    out_types = tuple(from_xdsl_type(v.type) for v in ret.operands)
    return Plan(steps, b.count, arg_slots, out_slots, out_types, b.constants, b.scalars,
                b.arrays)


def _entry(module: ModuleOp, name):
    fns = [op for op in module.ops if isinstance(op, func.FuncOp)]
    if name is not None:
        fns = [f for f in fns if f.sym_name.data == name] or fns
    if not fns:
        raise ValueError("df module has no func.func to run")
    return fns[0]


def _label(op) -> str:
    return describe_location(op.location)


# NumPy dtypes whose 0-d values the generated code computes with Python operators on NumPy
# scalars (runtime/codegen.py): exactly the ufunc's result for these, not for float16/bfloat16.
_SCALAR_DTYPES = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float32, np.float64))


def _static_type(ty):
    """(NumPy dtype, shape) of a tensor type whose shape is fully known, else None."""
    if not isinstance(ty, TensorType):
        return None
    tt = from_xdsl_type(ty)
    if any(d is None for d in tt.shape):
        return None
    return np.dtype(tt.dtype.np), tt.shape


_SKIPPED = (CreateTokenOp, func.ReturnOp, YieldOp)   # order and results need no step


class _Builder:
    def __init__(self):
        self.slots: dict = {}
        self.count = 0
        self.constants: dict = {}
        self.scalars: dict = {}        # slot -> NumPy dtype, for 0-d values of _SCALAR_DTYPES
        self.arrays: dict = {}         # slot -> (NumPy dtype, shape) of other static types
        # id(xDSL type) -> (type, _static_type(type)): hashing a type walks its parameters,
        # and the importer shares one object per type
        self._static: dict = {}
        self._handlers = {CondOp: self._cond_step, CaseOp: self._case_step,
                          WhileOp: self._while_step}
        self._kind_of_class: dict = {}

    def slot(self, value) -> int:
        ty = value.type
        if type(ty) is TokenType:
            return -1
        s = self.slots.get(value)
        if s is None:
            s = self.slots[value] = self.count
            self.count += 1
            entry = self._static.get(id(ty))
            if entry is None:
                entry = self._static[id(ty)] = (ty, _static_type(ty))
            static = entry[1]
            if static is not None and static[1] == () and static[0] in _SCALAR_DTYPES:
                self.scalars[s] = static[0]
            elif static is not None:
                self.arrays[s] = static
        return s

    def _ins(self, values):
        slots = self.slots
        return tuple([slots[v] for v in values if type(v.type) is not TokenType])

    def _outs(self, values):
        return tuple([self.slot(v) for v in values if type(v.type) is not TokenType])

    def _kind(self, cls):
        """"skip", "df", a region handler, or None (unknown), found once per op class."""
        kind = self._kind_of_class.get(cls)
        if kind is None:
            kind = "skip" if issubclass(cls, _SKIPPED) else "df" if issubclass(cls, DfOp) \
                else next((h for c, h in self._handlers.items() if issubclass(cls, c)), None)
            self._kind_of_class[cls] = kind
        return kind

    def steps_for(self, block) -> list:
        steps = []
        for op in block.ops:
            kind = self._kind(type(op))
            if kind == "skip":
                continue
            if kind == "df":
                step = self._kernel_step(op)
                if step.label.op == "const":          # evaluated once, at plan time
                    self.constants[step.outs] = step.fn(**step.attrs)
                else:
                    steps.append(step)
            elif kind is not None:
                steps.append(kind(op))
            else:
                raise UnimplementedError(None, op.name, f"the graph executor cannot run "
                                         f"'{op.name}' ({_label(op)})")
        return steps

    def _cond_step(self, op):
        outs = self._outs(op.results)
        branches = (self._region(op.then_region), self._region(op.else_region))
        return Step(COND, None, self._ins([op.pred]), outs, branches, _label(op))

    def _case_step(self, op):
        outs = self._outs(op.results)
        branches = tuple(self._region(r) for r in op.branches)
        return Step(CASE, None, self._ins([op.index]), outs, branches, _label(op))

    def _kernel_step(self, op):
        name = op.opdef.name
        fn = KERNELS.get(name)
        if fn is None:
            raise UnimplementedError(None, name, f"no kernel for '{name}' ({_label(op)})")
        ins = self._ins(op.operands)
        outs = self._outs(op.results)
        attrs = op.python_attrs()
        label = StepLabel(name, op.location, describe_location)
        if op.opdef.tensor_attrs and len(ins) > len(op.opdef.inputs):
            fn = bind_attr_operands(op.opdef, fn, attrs)
        if len(outs) == 0:
            return Step(NONE, fn, ins, (), attrs, label)
        if len(outs) == 1:  # kernels return a bare array for one result (as in eager)
            return Step(ONE, fn, ins, outs[0], attrs, label)
        return Step(MANY, fn, ins, outs, attrs, label)

    def _region(self, region):
        block = region.block
        steps = self.steps_for(block)
        return steps, self._ins(block.last_op.operands)

    def _while_step(self, op):
        cond_b, body_b = op.cond_region.block, op.body_region.block
        cond_args = self._outs(cond_b.args)
        cond_steps = self.steps_for(cond_b)
        cond_yield = self._ins(cond_b.last_op.operands)[0]
        body_args = self._outs(body_b.args)
        body_steps = self.steps_for(body_b)
        body_yields = self._ins(body_b.last_op.operands)
        outs = self._outs(op.results)
        loop = Loop(cond_steps, cond_args, cond_yield, body_steps, body_args, body_yields)
        return Step(WHILE, None, self._ins(op.inits), outs, loop, _label(op))
