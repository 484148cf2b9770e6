"""Gradient functions, one module per op family (same file names as every other layer).

A gradient function gets the recorded op and one gradient per output (None where no gradient
flows) and returns one gradient per input (None for inputs without one). It is written with
flowjit's public ops, so the same function builds eager tensors or graph nodes (TF's design).
The families register theirs with `_util.gradient`, which adds the rules every gradient shares
(no gradient for integer and bool inputs, nor when no upstream gradient arrived), and user
code with the same decorator as `flowjit.extend.register_gradient`:

    @gradient("mul")
    def _mul_grad(op, g):
        x, y = op.inputs
        return [unbroadcast(mul(g, y), x), unbroadcast(mul(x, g), y)]

`op` has `.inputs`, `.outputs` (tensors), `.attrs` (dict) and `.opdef` (the registry entry).
Ops declared `differentiable=False` need no entry: no gradient flows through them.
`register_gradient` below is the bare table entry `gradient` builds on.
"""
from __future__ import annotations

GRADIENTS: dict = {}


def register_gradient(*opnames):
    """Register `fn(op, *grads)` as the gradient of each op in `opnames`, as it is."""
    def deco(fn):
        for n in opnames:
            if n in GRADIENTS:
                raise ValueError(f"gradient for '{n}' registered twice")
            GRADIENTS[n] = fn
        return fn
    return deco


from ...ir.families import load_families  # noqa: E402

# tape: GradientTape; control_flow: gradients of cond/case/while nodes, which the tape
# records itself (no registry family); importing it registers the tape's control-flow hooks.
# graph_gradients: tf.gradients and tf.hessians; registration: tf.RegisterGradient.
FAMILIES = load_families(__name__, __path__,
                         not_families=("control_flow", "tape", "graph_gradients",
                                       "registration"))
from . import control_flow, registration  # noqa: E402,F401
