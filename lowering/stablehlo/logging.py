"""`print` and `assert` under XLA, as host callbacks: each becomes a side-effecting
`stablehlo.custom_call` to XLA's Python callback target, chained by a token to the previous
callback of its block so they run in program order. The callback runs the executor's own
kernel on the host, so the text is TF's. A failed assert is not raised inside XLA: it is kept
in the module's `failures` and raised as InvalidArgumentError (with the node and the user's
line) once the call ends; callbacks after it in the same run do nothing, as TF runs nothing
that depends on a failed assert."""
from __future__ import annotations

import numpy as np

from ...ir.errors import InvalidArgumentError
from ...runtime.jax_internals import hlo, ir
from ...runtime.kernels import KERNELS
from .core import HOST_CALLBACK_OPS, _where, register_lowering


def _target() -> str:
    from ...runtime import xla
    return "xla_ffi_python_gpu_callback" if xla.device().platform in ("gpu", "cuda", "rocm") \
        else "xla_ffi_python_cpu_callback"


def emit_host_callback(ctx, op, callback, operands):
    """A custom call that runs `callback(*arrays)` on the host when the computation reaches
    `op`, after every host callback before it in program order: the calls are chained by a
    token, which regions holding callbacks carry in and out as they carry variables
    (`LoweringContext.written_resources`)."""
    chain = ctx.callback_chain
    if chain.value is None:
        chain.value = hlo.after_all([])
    failures, real = ctx.failures, len(operands)

    def run(tok, *arrays):      # XLA passes the token (as None) and wants it back
        if not failures:
            callback(*[np.asarray(a) for a in arrays[:real]])
        return (tok,)

    ctx.host_callbacks.append(run)
    index = ir.IntegerAttr.get(ir.IntegerType.get_unsigned(64), len(ctx.host_callbacks) - 1)
    call = hlo.CustomCallOp(
        [hlo.TokenType.get()], [chain.value, *operands], call_target_name=_target(),
        has_side_effect=ir.BoolAttr.get(True),
        backend_config=ir.DictAttr.get({"index": index}),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4))
    chain.value = call.result


HOST_CALLBACK_OPS.update(("df.print", "df.assert"))


@register_lowering("print")
def _print(ctx, op, *inputs, **attrs):
    kernel = KERNELS["print"]
    emit_host_callback(ctx, op, lambda *arrays: kernel(*arrays, **attrs), inputs)


@register_lowering("assert")
def _assert(ctx, op, condition, *data, **attrs):
    kernel, failures, where = KERNELS["assert"], ctx.failures, _where(op)

    def check(*arrays):
        try:
            kernel(*arrays, **attrs)
        except InvalidArgumentError as e:
            failures.append(InvalidArgumentError(None, e.op,
                                                 f"{e.message}\n  [[node {where}]]"))
    emit_host_callback(ctx, op, check, (condition, *data))
