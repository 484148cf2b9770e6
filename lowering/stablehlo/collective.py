"""Sharded programs: Shardy annotations on a lowered module, and the rules of the
`collective` ops (`all_reduce` across the replicas of a per-replica program, `relayout` as
a sharding constraint).

A sharded function's module names one mesh, `@mesh`, declared by `sdy.mesh` with the
DTensor mesh's axes; each argument gets `#sdy.sharding<@mesh, [{"x"}, {}]>` from its layout
(a dimension split over a mesh axis, or whole: `{}`), and XLA's partitioner (Shardy)
propagates shardings through the body and inserts the collectives.
"""
from __future__ import annotations

import numpy as np
from ...runtime.jax_internals import hlo, ir, sdy

from .core import register_lowering

_COMBINE = {"sum": hlo.add, "mean": hlo.add, "max": hlo.maximum, "min": hlo.minimum}

MESH = "mesh"


def mesh_text(axes) -> str:
    """`sdy.mesh` operation text for [(name, size), ...]."""
    return f"sdy.mesh @{MESH} = <[" + ", ".join(f'"{n}"={s}' for n, s in axes) + "]>"


def sharding_text(spec) -> str:
    """`#sdy.sharding` of a per-dimension spec (a mesh axis name or None per dimension)."""
    dims = ", ".join("{}" if a is None else '{"%s"}' % a for a in spec)
    return f"#sdy.sharding<@{MESH}, [{dims}]>"


def _with_shardings(old, specs):
    """Argument/result attribute dicts `old` (an ArrayAttr or None) with `sdy.sharding` set
    where `specs` (index -> spec) has one."""
    attrs = []
    for i in range(len(old) if old is not None else max(specs) + 1):
        entries = {}
        if old is not None:
            d = ir.DictAttr(old[i])
            entries = {d[k].name: d[k].attr for k in range(len(d))}
        if i in specs:
            entries["sdy.sharding"] = ir.Attribute.parse(sharding_text(specs[i]))
        attrs.append(ir.DictAttr.get(entries))
    return ir.ArrayAttr.get(attrs)


def _main(module):
    return next(op for op in module.body.operations if op.operation.name == "func.func"
                and ir.StringAttr(op.attributes["sym_name"]).value == "main")


def _function_type(main):
    return ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)


def result_shapes(module) -> list:
    """The static shapes of a lowered module's `@main` results."""
    with module.context:
        return [list(ir.RankedTensorType(t).shape) for t in _function_type(_main(module)).results]


def _declare_mesh(module_block, axes):
    """Insert `sdy.mesh @mesh` at the top of the module once."""
    for op in module_block.operations:
        if op.operation.name == "sdy.mesh":
            return
    ir.InsertionPoint.at_block_begin(module_block).insert(ir.Operation.parse(mesh_text(axes)))


def parse_mesh(text: str) -> list:
    """[(axis, size), ...] of a mesh attribute "x=4,y=2"."""
    return [(n, int(s)) for n, s in (part.split("=") for part in text.split(","))]


def annotate_shardings(module, axes, arg_specs, result_specs):
    """Declare the mesh, each `@main` argument's sharding and the requested result shardings
    (index -> spec; the others XLA chooses) on a lowered module (in place)."""
    with module.context, ir.Location.unknown():
        body = module.body
        main = _main(module)
        _declare_mesh(body, axes)
        main.arg_attrs = _with_shardings(main.attributes["arg_attrs"] if "arg_attrs" in
                                         main.attributes else None, dict(enumerate(arg_specs)))
        if result_specs:
            n = len(_function_type(main).results)
            old = main.attributes["res_attrs"] if "res_attrs" in main.attributes else \
                ir.ArrayAttr.get([ir.DictAttr.get({})] * n)
            main.attributes["res_attrs"] = _with_shardings(old, result_specs)
        i32 = ir.IntegerType.get_signless(32)
        size = 1
        for _, s in axes:
            size *= s
        module.operation.attributes["mhlo.num_partitions"] = ir.IntegerAttr.get(i32, size)
        module.operation.attributes["mhlo.num_replicas"] = ir.IntegerAttr.get(i32, 1)


@register_lowering("all_reduce")
def _all_reduce(ctx, op, x, *, reduction, group_size):
    """`stablehlo.all_reduce` over replicas 0..group_size-1 (a group of one is the value)."""
    if group_size == 1:
        return x
    groups = ir.DenseIntElementsAttr.get(np.arange(group_size, dtype=np.int64)[None, :])
    red = hlo.AllReduceOp([x.type], [x], groups)
    scalar_t = ctx.tensor_type(ctx.dtype(x), ())
    block = red.regions[0].blocks.append(scalar_t, scalar_t)
    with ir.InsertionPoint(block):
        hlo.return_([_COMBINE[reduction](*block.arguments)])
    out = red.results[0]
    if reduction == "mean":
        out = hlo.divide(out, ctx.splat(group_size, x.type))
    return out


@register_lowering("relayout")
def _relayout(ctx, op, x, *, mesh, sharding):
    """`sdy.sharding_constraint` (the op's mesh is declared on the module); on a mesh of one
    device there is nothing to constrain."""
    axes = parse_mesh(mesh)
    if all(size == 1 for _, size in axes):
        return x
    parent = ir.InsertionPoint.current.block.owner
    while parent.operation.name != "builtin.module":
        parent = parent.operation.parent
    _declare_mesh(parent.regions[0].blocks[0], axes)
    spec = [None if s == "unsharded" else s for s in sharding.split(",")] if sharding else []
    return sdy.ShardingConstraintOp(x, ir.Attribute.parse(sharding_text(spec))).result
