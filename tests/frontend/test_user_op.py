"""An op registered from user code after import: declaration, kernel, lowering rule and
gradient are enough for eager, traced (executor), XLA, gradients in all three modes, and a df
text round trip. Before, the df dialect was generated once at import and tracing died with a
bare `KeyError: 'softsign2'`. Runs in a fresh interpreter, so the user op never joins the
registry the rest of the suite walks."""
from __future__ import annotations

from helpers import run_script

USER_PROGRAM = '''
import numpy as np
import jaxlib.mlir.dialects.stablehlo as hlo
import flowjit as tf
from flowjit.frontend.eager.dispatch import apply, convert_to_tensor
from flowjit.frontend.gradients import register_gradient
from flowjit.ir.infer import FLOATS, unary
from flowjit.ir.printing import parse_module, print_module
from flowjit.ir.registry import op
from flowjit.lowering.stablehlo import register_lowering
from flowjit.runtime.kernels import kernel


@op("softsign2", ("x",))
def _softsign2(types, attrs):
    return unary(types, FLOATS)


@kernel("softsign2")
def _softsign2_kernel(x):
    return x / (1 + np.abs(x))


@register_lowering("softsign2")
def _softsign2_rule(ctx, op, x):
    return hlo.divide(x, hlo.add(ctx.splat(1, x.type), hlo.abs(x)))


@register_gradient("softsign2")
def _softsign2_grad(op, grad):
    (x,) = op.inputs
    return [grad / tf.square(1 + tf.abs(x))]


def softsign2(x):
    return apply("softsign2", (convert_to_tensor(x),))


x = np.array([-2.0, -0.5, 0.0, 3.0], np.float32)
want = x / (1 + np.abs(x))                     # NumPy reference
dwant = 1 / (1 + np.abs(x)) ** 2
for mode in ("eager", "graph", "xla"):
    fn = softsign2 if mode == "eager" else tf.function(softsign2, jit_compile=mode == "xla")
    np.testing.assert_allclose(fn(tf.constant(x)).numpy(), want, rtol=1e-6)
    v = tf.Variable(x)

    def loss():
        return tf.reduce_sum(softsign2(v))
    step = loss if mode == "eager" else tf.function(loss, jit_compile=mode == "xla")
    with tf.GradientTape() as tape:
        out = step()
    np.testing.assert_allclose(tape.gradient(out, v).numpy(), dwant, rtol=1e-6)
f = tf.function(lambda t: softsign2(t) * 2.0)
text = f.experimental_get_compiler_ir(tf.constant(x))(stage="optimized")
assert "df.softsign2" in text, text
assert print_module(parse_module(text)) == text
print("ok")
'''


def test_an_op_registered_after_import_works_in_every_mode(tmp_path):
    script = tmp_path / "user_op.py"
    script.write_text(USER_PROGRAM)
    done = run_script(script, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("ok")
