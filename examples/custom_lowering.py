"""A StableHLO lowering rule from user code: `sigmoid` lowered as 0.5 * tanh(0.5 * x) + 0.5
instead of `stablehlo.logistic` (one way some backends prefer it). The rule replaces the
built-in one at once: a function compiled with the built-in rule recompiles on its next call
(its trace is reused).

    python examples/custom_lowering.py
"""
from __future__ import annotations

import flowjit as tf
from flowjit.extend import register_lowering
from flowjit.lowering.stablehlo import hlo


def sigmoid_by_tanh(ctx, op, x):
    """A rule gets the lowering context (shared builders such as `splat`), the df op and the
    lowered operands, and returns the lowered result."""
    half = ctx.splat(0.5, x.type)
    return hlo.add(hlo.multiply(half, hlo.tanh(hlo.multiply(half, x))), half)


def main():
    f = tf.function(tf.math.sigmoid, jit_compile=True)
    x = tf.constant([-4.0, -0.5, 0.0, 1.0, 3.0])
    f(x)                                            # compiled with the built-in rule
    print("built-in rule:\n" + f.experimental_get_compiler_ir(x)(stage="stablehlo"))
    register_lowering("sigmoid")(sigmoid_by_tanh)
    y = f(x)                                        # the same function, recompiled
    print("user rule:\n" + f.experimental_get_compiler_ir(x)(stage="stablehlo"))
    print("sigmoid(x) =", y.numpy().tolist())


if __name__ == "__main__":
    main()
