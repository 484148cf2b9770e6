"""A user pass: `x * 2.0` becomes `x + x` (exact in IEEE arithmetic: NaN, Inf, -0.0 and
overflow included), written as an xDSL `RewritePattern` and placed in the default pipeline
right after "cse".

    python examples/custom_pass.py
    flowjit-opt --load-plugin examples/custom_pass.py -p "default,mul-by-two-to-add" f.mlir

Importing this file registers the pass (what `--load-plugin` does); running it shows the pass
changing a traced function's `compiler_ir`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

import flowjit as tf
from flowjit.extend import DF_OPS, register_pass


def _is_two(value) -> bool:
    """Whether `value` is a floating-point `df.const` whose every element is 2."""
    const = value.owner
    if getattr(const, "name", None) != "df.const":
        return False
    array = np.asarray(const.python_attrs()["value"])
    return array.dtype.kind == "f" and array.size > 0 and bool(np.all(array == 2))


class MulByTwoToAdd(RewritePattern):
    def match_and_rewrite(self, op, rewriter: PatternRewriter) -> None:
        if op.name != "df.mul":
            return
        result_type = op.results[0].type
        for x, two in (op.operands, op.operands[::-1]):
            # Same type as the result: the constant neither broadcasts nor changes the dtype.
            if x.type == result_type and _is_two(two):
                add = DF_OPS["add"].create(operands=[x, x], result_types=[result_type],
                                           location=op.location)
                rewriter.replace(op, add)
                if not two.uses:
                    rewriter.erase(two.owner)
                return


@register_pass(after="cse")
@dataclass(frozen=True)
class MulByTwoToAddPass(ModulePass):
    """x * 2.0 -> x + x."""
    name = "mul-by-two-to-add"

    def apply(self, ctx, module) -> None:
        PatternRewriteWalker(MulByTwoToAdd()).rewrite_module(module)


def main():
    @tf.function
    def scale(x):
        return x * 2.0 - 1.0

    x = tf.constant([0.5, -3.0, 4.0])
    ir = scale.compiler_ir(x)
    print("traced:\n" + ir.text("dataflow"))
    print("optimized (the default pipeline, now with mul-by-two-to-add):\n"
          + ir.text("optimized"))
    print("scale(x) =", scale(x).numpy().tolist())


if __name__ == "__main__":
    main()
