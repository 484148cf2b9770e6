"""Lowering rules: matrix decompositions.

XLA has no QR, SVD, eigen or LU instruction: each platform provides them as custom calls
(LAPACK on CPU, cuSOLVER on GPU) with their own calling conventions. Rather than restate
those conventions, each rule lowers the matching jax.numpy/jax.lax function for the
operand's shape (jax picks the platform's custom calls), parses that module into ours and
calls its entry function. float16 is widened to float32 around the call, as the kernels do.
"""
from __future__ import annotations

import functools
import itertools
import re

import numpy as np

from ...ir import dtypes as D
from ...runtime.jax_internals import ir, mlir_func
from .builders import dtype_of_elem
from .core import register_lowering

_FUNC_NAME = re.compile(r"func\.func (?:public |private )?@([\w.$-]+)")
_PREFIXES = itertools.count()


@functools.lru_cache(maxsize=256)
def _jax_module_text(fn_key, avals: tuple) -> str:
    """The StableHLO text of `JAX_FUNCTIONS[fn_key]` lowered for inputs of the (shape,
    dtype) pairs `avals`."""
    import jax
    fn = JAX_FUNCTIONS[fn_key[0]](*fn_key[1:])
    with jax.enable_x64(True):
        # keep_unused: the call passes every input, also those jax sees no use for (all of
        # them when the result is empty)
        return jax.jit(fn, keep_unused=True).lower(
            *[jax.ShapeDtypeStruct(shape, np.dtype(dtype)) for shape, dtype in avals]).as_text()


def _module_of(block):
    op = block.owner
    while op.name != "builtin.module":
        op = op.parent
    return op


def call_jax(ctx, fn_key, *xs):
    """Call the jax function named by `fn_key` on xs from the rule being lowered: its
    module's functions are renamed apart and moved into the module under construction.
    Returns the results with jax's types."""
    text = _jax_module_text(fn_key, tuple((tuple(ctx.shape(x)), ctx.dtype(x).np.name)
                                          for x in xs))
    prefix = f"flowjit_{fn_key[0]}_{next(_PREFIXES)}_"
    for name in set(_FUNC_NAME.findall(text)):
        text = re.sub(rf"@{re.escape(name)}\b(?![\w.$-])", f"@{prefix}{name}", text)
    parsed = ir.Module.parse(text, ctx.mlir)
    here = ir.InsertionPoint.current
    module = _module_of(here.block)
    body = module.regions[0].blocks[0]
    result_types = None
    for fn in list(parsed.body.operations):
        if ir.StringAttr(fn.attributes["sym_name"]).value == prefix + "main":
            signature = ir.TypeAttr(fn.attributes["function_type"]).value
            result_types = ir.FunctionType(signature).results
        fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
        ir.InsertionPoint(body).insert(fn.detach_from_parent())
    call = mlir_func.CallOp(result_types, ir.FlatSymbolRefAttr.get(prefix + "main"),
                            list(xs))
    return list(call.results)


def _jax_rule(ctx, op, x, fn_key, empty=()):
    """Lower op through jax on x widened to its compute dtype; results listed in `empty` are
    TF's [0] placeholders, made here rather than by jax."""
    a = ctx.convert(x, D.compute_dtype(ctx.dtype(x)))
    out_types = ctx.result_types(op)
    computed = [i for i in range(len(out_types)) if i not in empty]
    results = dict(zip(computed, call_jax(ctx, fn_key, a)))
    return [ctx.zeros(t) if i in empty else
            ctx.convert(results[i], dtype_of_elem(t.element_type))
            for i, t in enumerate(out_types)]


def _qr(full_matrices):
    import jax.numpy as jnp
    return lambda a: jnp.linalg.qr(a, mode="complete" if full_matrices else "reduced")


def _svd(compute_uv, full_matrices):
    import jax.numpy as jnp
    if not compute_uv:
        return lambda a: jnp.linalg.svd(a, compute_uv=False)

    def run(a):
        u, s, vh = jnp.linalg.svd(a, full_matrices=full_matrices)
        return s, u, jnp.swapaxes(vh, -1, -2)
    return run


def _eigh(compute_v):
    """Only the lower triangle is read (jax would otherwise average a with a^T first)."""
    import jax.numpy as jnp

    def run(a):
        e, v = jnp.linalg.eigh(a, UPLO="L", symmetrize_input=False)
        return (e, v) if compute_v else e
    return run


def _eig(compute_v):
    import jax.numpy as jnp
    return (lambda a: tuple(jnp.linalg.eig(a))) if compute_v else jnp.linalg.eigvals


def _lu():
    import jax
    return lambda a: (lambda lu, _, perm: (lu, perm))(*jax.lax.linalg.lu(a))


JAX_FUNCTIONS = {"qr": _qr, "svd": _svd, "eigh": _eigh, "eig": _eig, "lu": _lu}


@register_lowering("qr")
def _lower_qr(ctx, op, x, *, full_matrices):
    return _jax_rule(ctx, op, x, ("qr", full_matrices))


@register_lowering("svd")
def _lower_svd(ctx, op, x, *, compute_uv, full_matrices):
    return _jax_rule(ctx, op, x, ("svd", compute_uv, full_matrices),
                     () if compute_uv else (1, 2))


@register_lowering("self_adjoint_eig")
def _lower_self_adjoint_eig(ctx, op, x, *, compute_v):
    return _jax_rule(ctx, op, x, ("eigh", compute_v), () if compute_v else (1,))


@register_lowering("eig")
def _lower_eig(ctx, op, x, *, compute_v):
    return _jax_rule(ctx, op, x, ("eig", compute_v), () if compute_v else (1,))


@register_lowering("lu")
def _lower_lu(ctx, op, x, *, output_idx_type):
    return _jax_rule(ctx, op, x, ("lu",))
