"""`constant-folding`: evaluate pure ops whose operands are all `df.const` with the NumPy kernels
(the ones the graph executor runs) and replace them by `df.const`; inline the taken branch of a
`df.cond` / `df.case` whose predicate / index is a constant.

Guards, after Grappler's ConstantFolding:
- Only ops `effects.is_pure` accepts are evaluated; stateful (token-carrying) ops never are.
  Ops of the `random` family are not folded either: their outputs are usually large and
  cheaper to generate than to store, and XLA lowers them with its own bit generator code.
- `max_size` bounds the number of elements of one folded op's results (default 1_000_000,
  4 MB of float32: about Grappler's 10 MiB `kMaxConstantSize` for 8-byte types, and small
  enough that building the constant attribute stays in the milliseconds). An op whose
  results are statically larger is not evaluated at all.
- `max_growth` (default 1024): an op may add at most this many elements over its constant
  operands. Generators (`range`, `fill_like`, `broadcast_to`, `tile`, `one_hot` ...) are cheap
  to run and costly to embed (the XLA lowering turns them into iota/broadcast instead of a
  literal), so folding must not blow a small graph up into a large constant.
- Nothing is folded that reads or makes a subnormal float: XLA's CPU backend flushes them
  to zero (as TF's CPU kernels do), the NumPy kernels do not, so the folded value could
  differ from what XLA computes; left in the graph, each backend keeps its own behavior.
- Ops with a float16/bfloat16 result are not folded unless `fold_half` is set: XLA's CPU
  backend evaluates chains of half-precision ops in float32 and drops the intermediate
  roundings, so a folded (rounded) constant would change what XLA computes. The executor
  rounds every op, and there folding them is exact. (Casts from half precision to wider
  types, comparisons and data movement of half values still fold.)
- A kernel that raises (a value-dependent error such as an out-of-range gather index) leaves
  the op alone, so the error still happens at run time, where it happened before.
- A folded constant keeps the result type of the value it replaces (type objects reused), so
  no user sees a type change; `shape-inference` refines a `?` dim of such a constant later.

Branch inlining keeps side effects exact: the ops of the taken region move, in order, to just
before the region op, which is where they ran before; the region's token is captured from
above, and the token it yields replaces the region op's token result, so the token chain is
rethreaded by construction. A yielded value whose type is more static than the region op's
result is routed through a `df.identity` of the old type (users keep their exact types;
`shape-inference` + `arithmetic` remove it where the function signature allows).

Exactness. In the executor a folded constant is bit for bit what the op computed before
(the same kernel). Under XLA, XLA compiles an unfolded constant expression with its own
liberties: a*b+c contracted into an FMA, division by a constant turned into multiplication
by its reciprocal, half precision evaluated in float32, subnormals flushed to zero. The
folded value is the IEEE per-op result instead, so XLA's output may move by a few ulps (as
with Grappler, which folds with the CPU kernels before XLA sees the graph). The last two
cases change results grossly (overflow, NaN) and are guarded above; transcendental kernels
may also differ from XLA's in the last ulp.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import (BytesAttr, DenseIntOrFPElementsAttr, TensorType,
                                   UnrankedTensorType)
from xdsl.ir import OpResult
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ..ir import dtypes as D
from ..ir.dialect import (OP_CLASSES, CaseOp, CondOp, DfOp, StringsAttr, element_type,
                          encode_attr, from_xdsl_type, to_xdsl_type)
from ..ir.registry import TT
from ..runtime.kernels import KERNELS
from . import register_pass
from .effects import is_dead, is_pure

ConstOp = OP_CLASSES["const"]
IdentityOp = OP_CLASSES["identity"]
CONST_NAME = ConstOp.name
NOT_FOLDED_FAMILIES = frozenset({"random"})
_TENSORS = (TensorType, UnrankedTensorType)
HALF = (D.float16, D.bfloat16)


# --- types and constants: read and build without Python lists ------------------------------
_TYPES: dict = {}  # id(xDSL type) -> (type, TT | ResourceTT | None, fully static)


def type_info(ty):
    """(TT, fully static) of an xDSL type, cached by identity: types are shared objects, and
    hashing one costs more than the conversion it would save. A token (or any type the
    registry does not know) gives (None, True): nothing to refine."""
    e = _TYPES.get(id(ty))
    if e is None or e[0] is not ty:
        try:
            tt = from_xdsl_type(ty)
        except Exception:  # noqa: BLE001
            tt = None
        shape = getattr(getattr(tt, "value", tt), "shape", None)
        e = (ty, tt, tt is None or (shape is not None and None not in shape))
        if len(_TYPES) > 100_000:
            _TYPES.clear()
        _TYPES[id(ty)] = e
    return e[1], e[2]


def const_op(value):
    """The `df.const` op defining `value`, or None."""
    if isinstance(value, OpResult) and value.op.name == CONST_NAME:
        return value.op
    return None


def const_raw(op):
    """(TT of the value, raw little-endian element bytes) of a `df.const`."""
    attr = op.attributes["value"]
    return type_info(attr.type)[0], attr.data.data


def const_value(op) -> np.ndarray:
    """The value of a `df.const` as a (read-only) array of its dtype. The attribute holds the
    raw little-endian element bytes (one byte per i1), read directly: decoding through a
    Python list costs about 0.2 us per element."""
    if isinstance(op.attributes["value"], StringsAttr):  # no raw buffer: bytes elements
        return op.python_attrs()["value"]
    tt, raw = const_raw(op)
    shape = tt.shape
    n = 1
    for d in shape:
        n *= d
    stored, native = _stored(tt.dtype)
    if stored is None:  # bool
        if len(raw) == n:
            return (np.frombuffer(raw, np.uint8) != 0).reshape(shape)
    elif len(raw) == n * stored.itemsize:
        arr = np.frombuffer(raw, stored).reshape(shape)
        return arr if native else arr.astype(tt.dtype.np)
    elif len(raw) == stored.itemsize:  # a splat stored once
        return np.broadcast_to(np.frombuffer(raw, stored).astype(tt.dtype.np)[0], shape)
    return op.python_attrs()["value"]


@functools.cache
def _stored(dt):
    """(little-endian numpy dtype of the stored elements, is it the native one); (None, _)
    for bool, stored as one byte per element."""
    if dt is D.bool_:
        return None, False
    stored = np.dtype(dt.np).newbyteorder("<")
    return stored, stored == np.dtype(dt.np)


_ATTRS: dict = {}  # (DType, shape, bytes) -> attribute, for small constants


def dense_attr(arr: np.ndarray) -> DenseIntOrFPElementsAttr:
    """`arr` as the attribute `encode_attr` would build (same bytes, so CSE still merges equal
    constants), straight from its buffer; small ones are shared (building and verifying an
    attribute costs more than folding a scalar op)."""
    dt = D.from_numpy(arr.dtype)
    if dt is D.string:
        return encode_attr(arr)
    if dt is D.bool_:
        raw = np.where(arr, np.uint8(0xFF), np.uint8(0)).tobytes()
    else:
        raw = np.ascontiguousarray(arr, dtype=_stored(dt)[0]).tobytes()
    key = (dt, arr.shape, raw) if len(raw) <= 512 else None
    attr = _ATTRS.get(key) if key is not None else None
    if attr is None:
        attr = DenseIntOrFPElementsAttr(to_xdsl_type(TT(dt, tuple(arr.shape))), BytesAttr(raw))
        if key is not None:
            if len(_ATTRS) > 10_000:
                _ATTRS.clear()
            _ATTRS[key] = attr
    return attr


def make_const(arr: np.ndarray, result_type, location=None):
    """A `df.const` holding `arr` (its dtype must be the op's) typed `result_type`."""
    dt = D.from_numpy(arr.dtype)
    return ConstOp.create(result_types=[result_type], location=location,
                          attributes={"value": dense_attr(arr), "dtype": element_type(dt)})


def _numel(tt):
    if tt is None or tt.shape is None or None in tt.shape:
        return None
    n = 1
    for d in tt.shape:
        n *= d
    return n


def _fits(tt, arr) -> bool:
    """The kernel's array matches the declared result type (dtype exactly, shape where known)."""
    if tt is None or D.from_numpy(arr.dtype) is not tt.dtype:
        return False
    if tt.shape is None:
        return True
    return len(tt.shape) == arr.ndim and all(d is None or d == a
                                             for d, a in zip(tt.shape, arr.shape))


def _erase_if_dead(op):
    """Drop a constant operand nothing uses any more (it was visited already: producers come
    first), so one run leaves a clean graph."""
    if op.parent is not None and is_dead(op):
        Rewriter.erase_op(op)


# float dtype -> its smallest normal number (other dtypes: absent)
_TINY = {np.dtype(t): float(ml_dtypes.finfo(t).tiny)
         for t in (np.float16, ml_dtypes.bfloat16, np.float32, np.float64)}


def _has_subnormal(a: np.ndarray) -> bool:
    """A nonzero float below the smallest normal: XLA's CPU backend flushes those to zero
    (inputs and results), the NumPy kernels do not."""
    tiny = _TINY.get(a.dtype)
    if tiny is None or a.size == 0:
        return False
    if a.size == 1:
        return 0.0 < abs(float(a.reshape(-1)[0])) < tiny
    mag = np.abs(a)
    return bool(((mag < tiny) & (mag > 0)).any())


# --- the pass -------------------------------------------------------------------------------
class _Folder:
    def __init__(self, max_size: int, max_growth: int, fold_branches: bool, fold_half: bool):
        self.max_size = max_size
        self.max_growth = max_growth
        self.fold_half = fold_half
        self.fold_branches = fold_branches
        self.dead: set = set()        # ops erased with an untaken branch
        self.values: dict = {}        # const op -> array, decoded once per run
        self.folded = 0

    def value(self, op):
        return self.entry(op)[0]

    def entry(self, op):
        """(array, holds a subnormal) of a constant, computed once per run."""
        e = self.values.get(op)
        if e is None:
            a = const_value(op)
            e = self.values[op] = (a, _has_subnormal(a))
        return e

    def run(self, module):
        branch_types = (CondOp, CaseOp)
        for op in list(module.walk()):
            t = type(op)
            if isinstance(op, DfOp):
                if op.name != CONST_NAME and not (self.dead and op in self.dead):
                    self.fold_op(op)
            elif t in branch_types and self.fold_branches and not (self.dead and op in self.dead):
                self.fold_region_op(op)
        return self.folded

    def fold_op(self, op):
        consts = []
        for v in op.operands:  # the cheapest test first: most ops have a non-constant operand
            if not isinstance(v, OpResult) or v.op.name != CONST_NAME:
                return
            consts.append(v.op)
        opdef = op.opdef
        if not is_pure(op) or opdef.family in NOT_FOLDED_FAMILIES or not op.results:
            return
        kernel = KERNELS.get(opdef.name)
        if kernel is None:
            return
        out_tts = [type_info(r.type)[0] for r in op.results]
        if not self.fold_half and any(t is None or t.dtype in HALF for t in out_tts):
            return
        entries = [self.entry(c) for c in consts]
        if any(e[1] for e in entries):
            return
        args = [e[0] for e in entries]
        limit = min(self.max_size, self.max_growth + sum(a.size for a in args))
        known = [_numel(t) for t in out_tts]
        if None not in known and sum(known) > limit:
            return
        try:
            out = kernel(*args, **op.python_attrs())
        except Exception:  # noqa: BLE001 - the error belongs to run time, as before folding
            return
        outs = (out,) if len(op.results) == 1 else tuple(out)
        arrays = [np.asarray(a) for a in outs]
        if len(arrays) != len(op.results) or sum(a.size for a in arrays) > limit \
                or not all(_fits(t, a) for t, a in zip(out_tts, arrays)) \
                or any(_has_subnormal(a) for a in arrays):
            return
        new = [make_const(a, r.type, op.location) for a, r in zip(arrays, op.results)]
        for c, a in zip(new, arrays):
            self.values[c] = (a, False)
        Rewriter.replace_op(op, new, [c.results[0] for c in new])
        for c in consts:
            _erase_if_dead(c)
        self.folded += 1

    def fold_region_op(self, op):
        c = const_op(op.operands[0])
        if c is None:
            return
        v = self.value(c)
        if v.size != 1:
            return
        if isinstance(op, CondOp):
            region = op.then_region if bool(v.reshape(())) else op.else_region
        else:
            n = len(op.branches)
            i = int(v.reshape(()))
            region = op.branches[i if 0 <= i < n else n - 1]
        block = region.block
        yield_op = block.last_op
        yielded = list(yield_op.operands)
        Rewriter.erase_op(yield_op)
        Rewriter.inline_block(block, InsertPoint.before(op))
        casts = []
        results = []
        for r, y in zip(op.results, yielded):
            if r.type == y.type or not isinstance(r.type, _TENSORS) \
                    or not isinstance(y.type, _TENSORS):
                results.append(y)
            else:
                ident = IdentityOp.create(operands=[y], result_types=[r.type],
                                          location=op.location)
                casts.append(ident)
                results.append(ident.results[0])
        for o in op.walk():
            if o is not op:
                self.dead.add(o)
        Rewriter.replace_op(op, casts, results)
        _erase_if_dead(c)
        self.folded += 1
        for ident in casts:  # created after the walk's list was taken: fold them now
            self.fold_op(ident)


@register_pass
@dataclass(frozen=True)
class ConstantFolding(ModulePass):
    """Options: `max_size` (elements per folded op, default 1_000_000), `max_growth`
    (elements a fold may add over its constant operands, default 1024), `fold_branches`
    (inline cond/case branches picked by a constant, default true) and `fold_half` (fold ops
    with float16/bfloat16 results, default false)."""
    name = "constant-folding"
    max_size: int = 1_000_000
    max_growth: int = 1024
    fold_branches: bool = True
    fold_half: bool = False

    def apply(self, ctx, op) -> None:
        _Folder(int(self.max_size), int(self.max_growth), bool(self.fold_branches),
                bool(self.fold_half)).run(op)
