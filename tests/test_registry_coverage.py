"""Every registry op has all its facets (ARCHITECTURE.md, "Where each facet of an op lives"):
inference, a NumPy kernel, a StableHLO lowering rule (stateful random, print and assert have
rules that refuse with a clear error, which still counts), a gradient or
`differentiable=False`, a public API name (or, for the internal ops passes create, an
`internal=True` declaration in the `fused` family) and a sample in tests/op_samples.py. A failure names every facet the op
lacks and where it belongs."""
import pytest

import flowjit as tf
from flowjit.extend import api_for_op, missing_facets
from flowjit.ir.registry import OPS
from flowjit.runtime.kernels import KERNELS
from op_samples import SAMPLES

# Families whose ops only passes create (declared `internal=True`).
INTERNAL_FAMILIES = ("fused",)

# facet -> where it belongs, for the failure message.
WHERE = {
    "kernel": "a NumPy kernel in runtime/kernels/{family}.py",
    "lowering": "a StableHLO rule in lowering/stablehlo/{family}.py",
    "gradient": "a gradient in frontend/gradients/{family}.py (or differentiable=False)",
    "api": "a public function in frontend/ops/{family}.py (tf_export, named like the op or "
           "marked runs(op))",
    "sample": "a sample in tests/op_samples.py",
}

def _resolve(public: str):
    obj = tf
    for part in public.split("."):
        obj = getattr(obj, part)
    return obj


def missing_message(name: str) -> str:
    """'' when op `name` has every facet, else one line naming each missing one."""
    missing = missing_facets(name) + ([] if name in SAMPLES else ["sample"])
    if not missing:
        return ""
    family = OPS[name].family
    return f"{name} lacks " + "; ".join(WHERE[m].format(family=family) for m in missing)


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_has_every_facet(name):
    opdef = OPS[name]
    assert callable(opdef.infer), f"{name}: no inference"
    assert isinstance(opdef.differentiable, bool) and isinstance(opdef.stateful, bool)
    message = missing_message(name)
    assert not message, message
    public = api_for_op(name)
    if public is None:
        # None = an internal op that passes create (remapper's fused ops); only the `fused`
        # family may have those, every other op must be reachable from the public API.
        assert opdef.family in INTERNAL_FAMILIES, \
            f"{name} is declared internal but only ops of {INTERNAL_FAMILIES} may be internal"
        return
    assert callable(_resolve(public)), f"{name}: API name tf.{public} does not resolve"


def test_a_user_op_lacking_facets_is_named_with_exactly_those(monkeypatch):
    """A user op with only a declaration and a kernel: the message names the four facets it
    lacks and nothing else; registering one removes it from the message."""
    from flowjit import extend
    from flowjit.extend import op_function, register_lowering, register_op
    from flowjit.ir.infer import FLOATS, unary
    from flowjit.lowering.stablehlo import RULES
    register_op("test_facets_op", ("x",), family="user_family")(
        lambda types, attrs: unary(types, FLOATS))
    monkeypatch.setitem(OPS, "test_facets_op", OPS.pop("test_facets_op"))  # undone at exit
    monkeypatch.setitem(KERNELS, "test_facets_op", lambda x: x)
    assert missing_facets("test_facets_op") == ["lowering", "gradient", "api"]
    assert missing_message("test_facets_op") == (
        "test_facets_op lacks a StableHLO rule in lowering/stablehlo/user_family.py; "
        "a gradient in frontend/gradients/user_family.py (or differentiable=False); "
        "a public function in frontend/ops/user_family.py (tf_export, named like the op or "
        "marked runs(op)); a sample in tests/op_samples.py")
    monkeypatch.setitem(RULES, "df.test_facets_op", None)  # undone at exit
    register_lowering("test_facets_op")(lambda ctx, op, x: x)
    monkeypatch.setattr(extend, "USER_API", {})
    op_function("test_facets_op")
    assert missing_facets("test_facets_op") == ["gradient"]


def test_architecture_md_lists_the_places_this_test_checks():
    """Adding an op touches exactly the places ARCHITECTURE.md lists: every facet checked here
    is in its table, at the same file."""
    import os
    import re
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "ARCHITECTURE.md"), encoding="utf-8") as f:
        table = f.read().split("## Where each facet of an op lives", 1)[1].split("\n## ", 1)[0]
    for facet, where in WHERE.items():
        path = re.search(r"[\w/]+(?:\{family\})?\.py", where).group()
        path = path.replace("{family}", "<family>")
        assert f"`{path}`" in table, f"ARCHITECTURE.md's facet table lacks {path} ({facet})"


def test_no_orphan_kernels():
    assert sorted(set(KERNELS) - set(OPS)) == []


def test_families_share_file_names():
    # frontend/ops/ is left out: a family's API may live elsewhere (`Variable`'s methods run
    # the state ops; only passes create the fused ones).
    import importlib
    for fam in {d.family for d in OPS.values()}:
        for layer in ("ir.ops", "runtime.kernels", "lowering.stablehlo"):
            importlib.import_module(f"flowjit.{layer}.{fam}")
