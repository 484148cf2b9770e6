"""A StableHLO lowering rule from user code: `sigmoid` lowered as 0.5 * tanh(0.5 * x) + 0.5
instead of `stablehlo.logistic` (one way some backends prefer it). The rule replaces the
built-in one for every function compiled after it is registered.

    python examples/custom_lowering.py
"""
from __future__ import annotations

import jaxlib.mlir.dialects.stablehlo as hlo
import flowjit as tf
from flowjit.extend import register_lowering


def sigmoid_by_tanh(ctx, op, x):
    """A rule gets the lowering context (shared builders such as `splat`), the df op and the
    lowered operands, and returns the lowered result."""
    half = ctx.splat(0.5, x.type)
    return hlo.add(hlo.multiply(half, hlo.tanh(hlo.multiply(half, x))), half)


def stablehlo_of_sigmoid(x) -> tuple:
    """(the StableHLO text, the result) of a fresh jit-compiled tf.math.sigmoid."""
    f = tf.function(tf.math.sigmoid, jit_compile=True)
    return f.experimental_get_compiler_ir(x)(stage="stablehlo"), f(x).numpy()


def main():
    x = tf.constant([-4.0, -0.5, 0.0, 1.0, 3.0])
    text, _ = stablehlo_of_sigmoid(x)
    print("built-in rule:\n" + text)
    register_lowering("sigmoid")(sigmoid_by_tanh)
    text, y = stablehlo_of_sigmoid(x)
    print("user rule:\n" + text)
    print("sigmoid(x) =", y.tolist())


if __name__ == "__main__":
    main()
