"""Side-effect ops: `print` and `assert`. Stateful (kept, and kept in program order); they
produce no values."""
from __future__ import annotations

from .. import dtypes as D
from ..registry import InferenceError, op


@op("print", ("inputs*",), attrs=(("template", "str"), ("stream", "str", "stderr"),
                                  ("summarize", "int", 3), ("end", "str", "\n"),
                                  ("placeholder", "str", "{}")),
    stateful=True, differentiable=False)
def _print(types, attrs):
    """Writes `template` to the named stream, each `placeholder` replaced by the next input
    tensor; the rest of the template is literal text (never a format spec)."""
    slots = placeholder_count(attrs["template"], attrs["placeholder"])
    if slots != len(types):
        raise InferenceError(f"print template has {slots} slots for {len(types)} tensors")
    return ()


def placeholder_count(template: str, placeholder: str) -> int:
    """How many times `placeholder` occurs in `template` (an empty one is refused)."""
    if not placeholder:
        raise InferenceError("the placeholder of a template must not be empty")
    return template.count(placeholder)


@op("assert", ("condition", "data*"), attrs=(("message", "str", ""), ("summarize", "int", 3)),
    stateful=True, differentiable=False)
def _assert(types, attrs):
    """Raises InvalidArgumentError with `message` and the data tensors when condition is false."""
    c = types[0]
    if c.dtype is not D.bool_ or (c.shape is not None and len(c.shape) != 0):
        raise InferenceError(f"assert condition must be a bool scalar, got {c}")
    return ()
