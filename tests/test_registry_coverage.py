"""Every registry op has all its facets: inference, a NumPy kernel, and a public API name.
Later layers (StableHLO rules, gradients) add their checks here."""
import pytest

import flowjit as tf
from flowjit.frontend import ops as api
from flowjit.ir.registry import OPS
from flowjit.runtime.kernels import KERNELS

_API = {}
for fam in api.FAMILIES:
    for opname, public in fam.API_FOR_OP.items():
        _API[opname] = (fam, public)


def _resolve(public: str):
    obj = tf
    for part in public.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_has_every_facet(name):
    opdef = OPS[name]
    assert callable(opdef.infer), f"{name}: no inference"
    assert name in KERNELS, f"{name}: no NumPy kernel in runtime/kernels/{opdef.family}.py"
    assert name in _API, f"{name}: no API_FOR_OP entry in frontend/ops/{opdef.family}.py"
    fam, public = _API[name]
    assert fam.__name__.rsplit(".", 1)[-1] == opdef.family, \
        f"{name}: declared in family {opdef.family} but its API lives in {fam.__name__}"
    assert callable(_resolve(public)), f"{name}: API name tf.{public} does not resolve"
    assert isinstance(opdef.differentiable, bool) and isinstance(opdef.stateful, bool)


def test_no_orphan_kernels():
    assert sorted(set(KERNELS) - set(OPS)) == []


def test_families_share_file_names():
    import importlib
    for fam in {d.family for d in OPS.values()}:
        for layer in ("ir.ops", "runtime.kernels", "frontend.ops"):
            importlib.import_module(f"flowjit.{layer}.{fam}")
