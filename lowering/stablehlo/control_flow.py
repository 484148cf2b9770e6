"""df.cond -> stablehlo.if, df.case -> stablehlo.case, df.while -> stablehlo.while.

Regions use values from above directly. Variables assigned inside a region leave it as extra
results (if/case) or extra loop values (while), so the new values flow on functionally.
"""
from __future__ import annotations

from ...ir.dialect import TokenType
from ...ir.errors import UnimplementedError
from ...runtime.jax_internals import hlo, ir
from .core import _where, register_lowering


def _branch(ctx, region, block, written, out_types, op):
    saved = [r.value for r in written]
    with ir.InsertionPoint(block):
        outs = ctx.lower_block(region.block)
        outs = [_match(ctx, v, t, op) for v, t in zip(outs, out_types)]
        hlo.return_(outs + [r.value for r in written])
    for r, v in zip(written, saved):
        r.value = v


def _match(ctx, value, ty, op):
    if value.type != ty:
        raise UnimplementedError(None, op.name, f"jit_compile=True: the branches of {op.name} "
                                 f"at {_where(op)} return different shapes ({value.type} vs "
                                 f"{ty}); XLA needs one static shape")
    return value


@register_lowering("df.cond")
def _cond(ctx, op, pred):
    written = ctx.written_resources(op)
    types = ctx.result_types(op)
    if_op = hlo.IfOp(types + [r.value.type for r in written], pred)
    for region, ir_region in ((op.then_region, if_op.true_branch),
                              (op.else_region, if_op.false_branch)):
        _branch(ctx, region, ir_region.blocks.append(), written, types, op)
    results = list(if_op.results)
    for r, v in zip(written, results[len(types):]):
        r.value = v
    return results[:len(types)]


@register_lowering("df.case")
def _case(ctx, op, index):
    written = ctx.written_resources(op)
    types = ctx.result_types(op)
    case_op = hlo.CaseOp(types + [r.value.type for r in written], index, len(op.branches))
    for region, ir_region in zip(op.branches, case_op.branches):
        _branch(ctx, region, ir_region.blocks.append(), written, types, op)
    results = list(case_op.results)
    for r, v in zip(written, results[len(types):]):
        r.value = v
    return results[:len(types)]


@register_lowering("df.while")
def _while(ctx, op, *inits):
    written = ctx.written_resources(op)
    n = len(inits)
    types = [v.type for v in inits] + [r.value.type for r in written]
    w = hlo.WhileOp(types, list(inits) + [r.value for r in written])
    for region, ir_region, is_cond in ((op.cond_region, w.cond, True),
                                       (op.body_region, w.body, False)):
        block = ir_region.blocks.append(*types)
        args = list(block.arguments)
        with ir.InsertionPoint(block):
            for a in region.block.args:
                ctx.env[a] = None                # the token, if any
            for a, v in zip(_non_token(region.block.args), args[:n]):
                ctx.env[a] = v
            for r, v in zip(written, args[n:]):
                r.value = v
            outs = ctx.lower_block(region.block)
            if is_cond:
                hlo.return_(outs[:1])
            else:
                outs = [_match(ctx, v, t, op) for v, t in zip(outs, types[:n])]
                hlo.return_(outs + [r.value for r in written])
    results = list(w.results)
    for r, v in zip(written, results[n:]):
        r.value = v
    return results[:n]


def _non_token(values):
    return [v for v in values if not isinstance(v.type, TokenType)]
