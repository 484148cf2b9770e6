"""TF's public gradient registration: `@tf.RegisterGradient("op")` and `tf.no_gradient("op")`
write flowjit's gradient table (`GRADIENTS`), so the tape and `tf.gradients` use them. Op
types are flowjit's registry names (an op of `flowjit.extend.register_op`, or a built-in one
such as "square"), as `graph.get_operations()` reports them."""
from __future__ import annotations

from ..export import tf_export
from . import GRADIENTS
from ._util import gradient


def _check_new(op_type):
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    previous = GRADIENTS.get(op_type)
    if previous is not None:
        code = getattr(previous, "__code__", None)
        where = f" {code.co_filename}:{code.co_firstlineno}" if code else ""
        raise KeyError(f"Registering two gradient with name '{op_type}'! (Previous "
                       f"registration was in {previous.__qualname__}{where})")


@tf_export("RegisterGradient")
class RegisterGradient:
    """A decorator registering `fn(op, *grads)` as the gradient of ops of type `op_type`;
    `fn` returns one gradient per input (a single tensor for a one-input op)."""

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f):
        _check_new(self._op_type)

        def as_list(op, *grads):
            out = f(op, *grads)
            return list(out) if isinstance(out, (list, tuple)) else [out]
        gradient(self._op_type)(as_list)
        return f


@tf_export("no_gradient")
def no_gradient(op_type: str) -> None:
    """Declare that no gradient flows through ops of type `op_type` (their inputs get None)."""
    _check_new(op_type)
    GRADIENTS[op_type] = lambda op, *grads: [None] * len(op.inputs)
