"""A new op from user code: `log_cosh(x) = log(cosh(x))`, with its five facets registered
through `flowjit.extend`: declaration (shape/dtype inference), NumPy kernel, StableHLO
lowering rule, gradient, and the API function. It then runs eagerly, traced (graph executor)
and under XLA, with gradients, and `flowjit-opt --load-plugin examples/custom_op.py` knows it.

    python examples/custom_op.py
"""
from __future__ import annotations

import math

from flowjit.lowering.stablehlo import hlo
import numpy as np

import flowjit as tf
from flowjit.extend import (infer, op_function, register_gradient, register_kernel,
                            register_lowering, register_op)

_LOG2 = math.log(2.0)


@register_op("log_cosh", inputs=("x",))
def _log_cosh_type(types, attrs):
    """log(cosh(x)) elementwise, without overflow for large |x|."""
    return infer.unary(types, infer.FLOATS)


@register_kernel("log_cosh")
def _log_cosh_kernel(x):
    return (np.logaddexp(x, -x) - _LOG2).astype(x.dtype)


@register_lowering("log_cosh")
def _log_cosh_rule(ctx, op, x):
    # |x| + log1p(exp(-2|x|)) - log 2: exp never overflows.
    a = hlo.abs(x)
    tail = hlo.log_plus_one(hlo.exponential(hlo.multiply(a, ctx.splat(-2.0, x.type))))
    return hlo.subtract(hlo.add(a, tail), ctx.splat(_LOG2, x.type))


@register_gradient("log_cosh")
def _log_cosh_grad(op, grad):
    (x,) = op.inputs
    return [grad * tf.tanh(x)]


log_cosh = op_function("log_cosh")


def main():
    values = np.array([-30.0, -1.5, 0.0, 0.25, 2.0], np.float32)
    x = tf.constant(values)
    want = np.log(np.cosh(values.astype(np.float64)))    # NumPy references
    dwant = np.tanh(values.astype(np.float64))
    modes = {"eager": log_cosh, "graph": tf.function(log_cosh),
             "xla": tf.function(log_cosh, jit_compile=True)}
    for mode, fn in modes.items():
        y = fn(x).numpy()
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)
        print(f"{mode}: log_cosh(x) = {y.tolist()}")

    for mode, jit in (("eager", None), ("graph", False), ("xla", True)):
        def grad(v):
            with tf.GradientTape() as tape:
                tape.watch(v)
                y = tf.reduce_sum(log_cosh(v))
            return tape.gradient(y, v)
        fn = grad if jit is None else tf.function(grad, jit_compile=jit)
        dy = fn(x).numpy()
        np.testing.assert_allclose(dy, dwant, rtol=1e-5, atol=1e-6)
        print(f"{mode}: d/dx = {dy.tolist()}")
    print("values and gradients match NumPy in every mode")

    print(tf.function(log_cosh).experimental_get_compiler_ir(x)(stage="optimized"))


if __name__ == "__main__":
    main()
