"""Every registry op has all its facets: inference, a NumPy kernel, and a public API name
(or, for the internal ops passes create, `None` in the `fused` family).
Every op also needs a StableHLO lowering rule (stateful random, print and assert have rules
that refuse with a clear error, which still counts as a rule)."""
import pytest

import flowjit as tf
from flowjit.frontend import ops as api
from flowjit.frontend.gradients import GRADIENTS
from flowjit.ir.registry import OPS
from flowjit.lowering.stablehlo import RULES
from flowjit.runtime.kernels import KERNELS

# Families whose ops only passes create: API_FOR_OP maps them to None.
INTERNAL_FAMILIES = ("fused",)

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
    assert isinstance(opdef.differentiable, bool) and isinstance(opdef.stateful, bool)
    assert f"df.{name}" in RULES, \
        f"{name}: no StableHLO rule in lowering/stablehlo/{opdef.family}.py"
    assert not opdef.differentiable or name in GRADIENTS, \
        f"{name}: differentiable but no gradient in frontend/gradients/{opdef.family}.py " \
        f"(or declare it differentiable=False)"
    fam, public = _API[name]
    assert fam.__name__.rsplit(".", 1)[-1] == opdef.family, \
        f"{name}: declared in family {opdef.family} but its API lives in {fam.__name__}"
    if public is None:
        # None = an internal op that passes create (remapper's fused ops); only the `fused`
        # family may have those, every other op must be reachable from the public API.
        assert opdef.family in INTERNAL_FAMILIES, \
            f"{name}: API_FOR_OP is None but only ops of {INTERNAL_FAMILIES} may be internal"
        return
    assert callable(_resolve(public)), f"{name}: API name tf.{public} does not resolve"


def test_no_orphan_kernels():
    assert sorted(set(KERNELS) - set(OPS)) == []


def test_families_share_file_names():
    import importlib
    for fam in {d.family for d in OPS.values()}:
        for layer in ("ir.ops", "runtime.kernels", "frontend.ops", "lowering.stablehlo"):
            importlib.import_module(f"flowjit.{layer}.{fam}")
