"""The TF-oracle case format: plain data, importable by the recorder (run with TensorFlow)
and by the tests (run with flowjit), so neither side imports the other's framework.

A case module `tests/oracle/cases_<group>.py` defines `CASES`, a list built with `case()`:

    CASES = [
        case("math.xlogy", T([0., 0., 1., 2.]), T([0., -1., 0., "nan"]), grad=(0, 1)),
        case("reshape", T([[1, 2, 3], [4, 5, 6]], "int32"), [3, 2]),
        case("nn.softmax", T([[1., 1., 1.], [0., "-inf", 3.]], "float16"), axis=-1, grad=(0,)),
    ]

`api` is the public name below `tf.` ("math.xlogy", "reshape", "linalg.svd"). Positional and
keyword arguments are Python values (ints, floats, strings, lists, None) or tensors `T(values,
dtype)`; a float spelled "nan", "inf", "-inf" or "-0.0" inside `values` is that special value;
in a complex tensor a value may also be a string as Python spells a complex number ("1-2j");
recorded complex values are [real, imaginary] pairs.
`grad` lists the positional arguments (floating tensors) the recorder differentiates: it
records d(sum(output * W))/d(arg), where W is `upstream(shape)` for each float output, so
a gradient that is wrong only under a uniform upstream is still caught. `tol` overrides the
comparison tolerance of this case (a (rtol, atol) pair), `modes` restricts the modes it runs in
("eager", "graph", "xla") where a mode is documented to differ. Case ids are the api name and
the case's index in its module, so adding a case never renames another.
"""
from __future__ import annotations

import math

SPECIAL = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "-0.0": -0.0}
MODES = ("eager", "graph", "xla")


def T(values, dtype: str = "float32") -> dict:
    """A tensor argument: nested lists of values and a TF dtype name."""
    return {"tensor": values, "dtype": dtype}


def WindowOp(api: str, *args, **kwargs) -> dict:
    """An argument that is a window op as `nn.with_space_to_batch` calls one: `op(input,
    num_spatial_dims, padding)` calls `api(input, *args, padding=padding, **kwargs)`."""
    return {"window_op": api, "args": list(args), "kwargs": kwargs}


def case(api: str, *args, grad: tuple = (), tol: tuple | None = None,
         modes: tuple = MODES, **kwargs) -> dict:
    return {"api": api, "args": list(args), "kwargs": kwargs, "grad": tuple(grad),
            "tol": tol, "modes": tuple(modes)}


def decode(values):
    """`values` with the special-value strings turned into floats."""
    if isinstance(values, list):
        return [decode(v) for v in values]
    return SPECIAL.get(values, values) if isinstance(values, str) else values


def upstream(shape) -> list:
    """The output gradient used for a float output of `shape`: 1, 2, 3, ... cycling mod 7
    and scaled by 1/4, in row-major order (non-uniform, exactly representable in f16)."""
    n = 1
    for d in shape:
        n *= int(d)
    flat = [((i % 7) + 1) / 4 for i in range(n)]

    def build(dims, start):
        if not dims:
            return flat[start]
        step = 1
        for d in dims[1:]:
            step *= int(d)
        return [build(dims[1:], start + i * step) for i in range(int(dims[0]))]
    return build(list(shape), 0)
