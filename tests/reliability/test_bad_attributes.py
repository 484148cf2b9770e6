"""The bad-input sweep's attribute roles: every public function (from the families'
`flowjit.extend.api_names()`, so a new op joins automatically) with an `axis`, a shape-like or a `seed`
parameter, called with a bad value of it in eager mode, traced, and under XLA. TF 2.21 refuses
each of these values (InvalidArgumentError / ValueError / TypeError naming the op); flowjit
must raise one of TF's classes naming the op or the user's line, never accept the value
(`axis=1.5` used to act on axis 1, `seed="3"` was accepted) and never abort or allocate.
"""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import flowjit as tf
from flowjit.errors import OpError
from flowjit.extend import api_names
from helpers import shown

CLEAR = (ValueError, TypeError, NotImplementedError, OpError)
BAD = {
    "axis": [1.5, "0", 7, -7],
    "shape": [[-3, 2], [2**63], [2**40, 2**40], [1.5], "3"],
    "seed": ["3", [1]],
}
SHAPE_PARAMS = ("shape", "dims")
TENSOR_PARAMS = ("input", "x", "logits", "input_tensor", "tensor", "values", "value",
                 "features", "a")


def _public(name):
    obj = tf
    for part in name.split("."):
        obj = getattr(obj, part, None)
    return obj


# Public compositions (no op of their own) that take shapes.
COMPOSITIONS = ["zeros", "ones", "fill", "random.stateless_uniform", "random.stateless_normal"]


def _cases():
    """(api name, parameter, bad value) for every public function taking such a parameter."""
    seen, out = set(), []
    publics = sorted({p for p in api_names().values() if p})
    for public in publics + COMPOSITIONS:
        if True:
            fn = _public(public)
            if not callable(fn) or fn in seen:
                continue
            seen.add(fn)
            try:
                params = inspect.signature(fn).parameters
            except (TypeError, ValueError):
                continue
            required = [p for p, v in params.items() if v.default is inspect.Parameter.empty
                        and v.kind is v.POSITIONAL_OR_KEYWORD]
            for role, values in BAD.items():
                names = SHAPE_PARAMS if role == "shape" else (role,)
                param = next((p for p in names if p in params), None)
                others = [p for p in required if p != param and not (
                    role != "shape" and p == "shape")]   # a valid shape is given
                if param is None or len(others) > 1 or (others and others[0] not in
                                                        TENSOR_PARAMS):
                    continue
                for v in values:
                    out.append((public, param, others[0] if others else None, v))
    return out


CASES = _cases()


def _call(public, param, tensor_param, value, mode):
    fn = _public(public)
    kwargs = {param: value}
    params = inspect.signature(fn).parameters
    if param != "shape" and "shape" in params:
        kwargs["shape"] = [2]
    if param == "dims":   # fill(dims, value): a valid scalar value
        tensor_param, kwargs["value"] = None, 1.0
    if param == "seed" and public.startswith("random.stateless"):
        kwargs["seed"] = value

    def body(x):
        if public == "concat":   # TF returns a single value unchecked: give it two
            x = [x, x]
        return fn(**({tensor_param: x} if tensor_param else {}), **kwargs)
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    run = body if mode == "eager" else tf.function(body, jit_compile=mode == "xla")
    return run(x)


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
@pytest.mark.parametrize("public,param,tensor_param,value", CASES,
                         ids=[f"{c[0]}-{c[1]}={c[3]!r}"[:60] for c in CASES])
def test_bad_attribute_is_refused_clearly(public, param, tensor_param, value, mode):
    with pytest.raises(CLEAR) as info:
        _call(public, param, tensor_param, value, mode)
    msg = shown(info.value)   # TF's text, and the user's line in a note where flowjit adds one
    assert public.rsplit(".", 1)[-1] in msg or "test_bad_attributes.py" in msg or \
        any(op in msg for op, p in api_names().items() if p == public), msg
