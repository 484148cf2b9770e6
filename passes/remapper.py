"""`remapper`: Grappler's remapper. Replaces a product, its bias add and an activation by one
fused op (`ir/ops/fused.py`):

    matmul -> bias_add | add(rank-1 bias of the last dim) [-> activation]   => fused_matmul
    conv2d -> bias_add | add(per-channel bias)             [-> activation]   => fused_conv2d
    conv2d [-> bias] -> mul(per-channel const) -> add(per-channel const) [-> activation]
        (inference batch normalization, as `tf.nn.batch_normalization` composes it once
        constant folding has made its scale and shift constants)       => fused_conv2d

Activations are those of `fused.ACTIVATIONS` (relu, relu6, elu, selu, leaky_relu, gelu, tanh,
sigmoid). A chain is fused only when every intermediate value has exactly one use, by the
next op of the chain in the same block (so nothing is recomputed or moved into a region).

Exactness: fused ops compute each step exactly as the ops they replace, so those rewrites
are bit-exact. The batch-norm fold is not: it scales the filter (w * s) instead of the
product (conv(x, w) * s), a reassociation that changes float results by a few ulps (as TF's
own folding does; integer results stay exact). It is guarded (s finite and nonzero, w * s
finite) and can be switched off with `remapper{fold-batch-norm=false}`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.rewriter import InsertPoint

from ..ir.constants import make_const, tt_of, value_of
from ..ir.dialect import OP_CLASSES, encode_attr, to_xdsl_type
from ..ir.ops.fused import ACTIVATIONS, activation_of
from ..ir.ops.nn import spatial_axes
from ..ir.registry import OPS, TT, InferenceError
from . import register_pass
from .rewrite import PatternPass, RootedPattern, sole_user

# --- matching helpers -----------------------------------------------------------------------


def _other(op, value):
    """The other operand of a binary op one of whose operands is `value` (None if both)."""
    a, b = op.operands
    if a is value and b is not value:
        return b
    if b is value and a is not value:
        return a
    return None


def _per_channel(arr, out_shape, axis):
    """`arr` as a 1-D vector over `axis` of `out_shape`, if broadcasting `arr` against the
    result is exactly "one value per channel" (a scalar counts: it is repeated)."""
    if arr.ndim > len(out_shape) or out_shape[axis] is None:
        return None
    c = out_shape[axis]
    full = (1,) * (len(out_shape) - arr.ndim) + arr.shape
    pos = axis % len(out_shape)
    if any(d != 1 for i, d in enumerate(full) if i != pos) or full[pos] not in (1, c):
        return None
    return np.broadcast_to(arr.reshape(-1), (c,)) if arr.size == 1 else arr.reshape(c)


@dataclass
class _Bias:
    value: object = None      # an existing SSA value to use as the 1-D bias
    array: object = None      # or a constant vector (when it must be reshaped or folded)
    loc: object = None        # the op whose location a new bias constant keeps


def _match_bias(user, prev, out_tt, axis, data_formats):
    """The bias of `user` if it adds a per-channel bias to `prev` along `axis`, else None.
    `data_formats` are the bias_add formats whose axis is `axis` for this rank."""
    if user.name == "df.bias_add":
        fmt = user.python_attrs()["data_format"] or "NHWC"
        if user.operands[0] is not prev or fmt not in data_formats:
            return None
        return _Bias(value=user.operands[1])
    if user.name != "df.add":
        return None
    b = _other(user, prev)
    if b is None or tt_of(user.results[0]) != out_tt:
        return None
    bt = tt_of(b)
    last = len(out_tt.shape) - 1
    if axis == last and bt.shape is not None and len(bt.shape) == 1 and \
            bt.shape[0] is not None and bt.shape[0] == out_tt.shape[-1]:
        return _Bias(value=b)
    arr = value_of(b)
    if arr is not None:
        vec = _per_channel(arr, out_tt.shape, axis)
        if vec is not None and arr.shape != (out_tt.shape[axis],):
            return _Bias(array=np.ascontiguousarray(vec), loc=b.owner)
    return None


_ACTIVATION_OPS = frozenset("df." + e[0] for e in ACTIVATIONS.values() if e)


def _match_activation(prev, block):
    user = sole_user(prev, block)
    if user is None or user.name not in _ACTIVATION_OPS:
        return None, None
    act = activation_of(user.name[3:], user.python_attrs())
    return (user, act) if act is not None else (None, None)


# --- building -------------------------------------------------------------------------------
@dataclass
class _NewConst:
    """A constant operand to create once the fusion is certain: its value, the op whose
    result dtype it takes, the op whose location it keeps, and the op to insert it before."""
    array: object
    like: object
    loc: object
    before: object

    def tt(self):
        return TT(tt_of(self.like.results[0]).dtype, tuple(np.shape(self.array)))

    def build(self, rewriter):
        tt = self.tt()
        arr = np.ascontiguousarray(self.array, dtype=tt.dtype.np)
        op = make_const(arr, to_xdsl_type(tt), self.loc.location)
        rewriter.insert(op, InsertPoint.before(self.before))
        return op.results[0]


def _fuse(rewriter, name, operands, attrs, chain):
    """Replace the ops of `chain` (first to last, each the sole user of the one before) by
    one op `name` with the attributes of the chain's first op plus `attrs` (the activation);
    returns it, or None when the fused op's inference rejects the operands."""
    last = chain[-1]
    opdef = OPS[name]
    types = [v.tt() if isinstance(v, _NewConst) else tt_of(v) for v in operands]
    full = chain[0].python_attrs()
    full.update(attrs)
    try:
        opdef.infer(types, opdef.resolve_attrs(full))
    except (InferenceError, TypeError):
        return None
    operands = [v.build(rewriter) if isinstance(v, _NewConst) else v for v in operands]
    encoded = dict(chain[0].attributes)   # the product's attributes, already encoded
    for k, v in attrs.items():
        encoded[k] = encode_attr(v)
    op = OP_CLASSES[name].create(operands=operands, result_types=[last.results[0].type],
                                 attributes=encoded)
    op.location = last.location
    rewriter.replace(last, op)
    for dead in reversed(chain[:-1]):   # each was used only by the next
        rewriter.erase(dead)
    return op


def _act_attrs(act):
    if not act:
        return {"activation": ""}
    return {"activation": act[0], "alpha": act[1]} if act[0] == "leaky_relu" else \
        {"activation": act[0]}


# --- patterns -------------------------------------------------------------------------------
def _fuse_matmul(rewriter, mm) -> bool:
    block = mm.parent
    out = mm.results[0]
    out_tt = tt_of(out)
    user = sole_user(out, block)
    if user is None or out_tt.shape is None:
        return False
    rank = len(out_tt.shape)
    # bias_add's NCHW form adds along axis 1, the last axis only for rank 2
    bias = _match_bias(user, out, out_tt, rank - 1, ("NHWC", "NCHW") if rank == 2 else
                       ("NHWC",))
    if bias is None:
        return False
    chain = [mm, user]
    act_op, act = _match_activation(user.results[0], block)
    if act_op is not None:
        chain.append(act_op)
    bias_value = bias.value if bias.value is not None else \
        _NewConst(bias.array, mm, user.operands[1].owner, mm)
    return _fuse(rewriter, "fused_matmul", [mm.operands[0], mm.operands[1], bias_value],
                 _act_attrs(act), chain) is not None


def _all_finite(*arrays) -> bool:
    return all(bool(np.all(np.isfinite(a))) for a in arrays)


def _fold_scale(w, s, shift, b):
    """Filter w * s (s per output channel: the filter's last axis) and bias b * s + shift,
    or None when a value involved is not finite (folding must not create or move an inf or
    NaN) or a scale is zero (0 * inf in the product would be NaN, the folded filter 0)."""
    dt = w.dtype
    s = s.astype(dt)
    shift = shift.astype(dt)
    if dt.kind not in "iu":
        if not (_all_finite(w, s, shift) and np.all(s != 0)) or \
                b is not None and not _all_finite(b):
            return None
    with np.errstate(all="ignore"):
        w2 = (w * s).astype(dt)
        bias = shift if b is None else (b.astype(dt) * s + shift).astype(dt)
    if dt.kind not in "iu" and not _all_finite(w2, bias):
        return None
    return w2, bias


def _match_batch_norm(prev, block, out_tt, ch):
    """(mul, add, scale vector, shift vector) if `prev` is scaled, then shifted, per channel
    by constants, each op the sole user of the one before."""
    mul = sole_user(prev, block)
    if mul is None or mul.name != "df.mul" or tt_of(mul.results[0]) != out_tt:
        return None
    s = _other(mul, prev)
    s = None if s is None else value_of(s)
    s = None if s is None else _per_channel(s, out_tt.shape, ch)
    if s is None:
        return None
    add = sole_user(mul.results[0], block)
    if add is None or tt_of(add.results[0]) != out_tt:
        return None
    if add.name == "df.add":
        t = _other(add, mul.results[0])
    elif add.name == "df.bias_add" and add.operands[0] is mul.results[0] and \
            ch == len(out_tt.shape) - 1 and add.python_attrs()["data_format"] == "NHWC":
        t = add.operands[1]
    else:
        return None
    t = None if t is None else value_of(t)
    t = None if t is None else _per_channel(t, out_tt.shape, ch)
    if t is None:
        return None
    return mul, add, s, t


def _fuse_conv(rewriter, conv, fold_bn: bool) -> bool:
    block = conv.parent
    out = conv.results[0]
    out_tt = tt_of(out)
    user = sole_user(out, block)
    if user is None or out_tt.shape is None:
        return False
    attrs = conv.python_attrs()
    fmt = attrs["data_format"]
    rank = len(out_tt.shape)
    _, ch = spatial_axes(fmt, rank)
    c = out_tt.shape[ch]
    # bias_add's NCHW form adds along axis 1, the channel axis only for rank 4
    formats = ("NHWC",) if fmt == "NHWC" else (("NCHW",) if rank == 4 else ())
    chain = [conv]
    prev = out
    bias = _match_bias(user, prev, out_tt, ch, formats)
    if bias is not None:
        chain.append(user)
        prev = user.results[0]
    filt = conv.operands[1]
    bn = _match_batch_norm(prev, block, out_tt, ch) if fold_bn and c is not None else None
    if bn is not None:
        mul, add, s, shift = bn
        w = value_of(filt)
        b = None if bias is None else (
            bias.array if bias.value is None else value_of(bias.value))
        folded = None
        if w is not None and w.shape[-1] == c and (bias is None or b is not None):
            folded = _fold_scale(w, s, shift, None if b is None else b.reshape(c))
        if folded is not None:
            chain += [mul, add]
            prev = add.results[0]
            filt = _NewConst(folded[0], conv, filt.owner, conv)
            bias = _Bias(array=folded[1], loc=add)
    if bias is None:
        return False
    act_op, act = _match_activation(prev, block)
    if act_op is not None:
        chain.append(act_op)
    bias_value = bias.value if bias.value is not None else \
        _NewConst(bias.array, conv, bias.loc, conv)
    return _fuse(rewriter, "fused_conv2d", [conv.operands[0], filt, bias_value], _act_attrs(act),
                 chain) is not None


class FuseMatMul(RootedPattern):
    roots = ("df.matmul",)

    def match_and_rewrite(self, op, rewriter):
        _fuse_matmul(rewriter, op)


class FuseConv2D(RootedPattern):
    roots = ("df.conv2d",)

    def __init__(self, fold_batch_norm: bool):
        self.fold_batch_norm = fold_batch_norm

    def match_and_rewrite(self, op, rewriter):
        _fuse_conv(rewriter, op, self.fold_batch_norm)


@register_pass
@dataclass(frozen=True)
class Remapper(PatternPass):
    name = "remapper"
    fold_batch_norm: bool = True

    def patterns(self):
        return (FuseMatMul(), FuseConv2D(bool(self.fold_batch_norm)))
