"""Each layer loads the op families from one list, the declaration modules of `ir/ops/`
(ir/families.py): a family's module in any layer is imported without an `__init__` edit, and
a module with no declaration module is refused by name instead of registering nothing."""
import importlib
import sys

import pytest

from flowjit.ir.families import family_names, load_families

LAYERS = ("flowjit.ir.ops", "flowjit.runtime.kernels", "flowjit.lowering.stablehlo",
          "flowjit.frontend.ops", "flowjit.frontend.gradients")


def test_the_families_are_the_declaration_modules():
    names = family_names()
    assert "math" in names and "nn" in names and "collective" in names
    assert not any(n.startswith("_") for n in names)
    assert list(importlib.import_module("flowjit.ir.ops").FAMILIES) == list(names)


@pytest.mark.parametrize("layer", LAYERS)
def test_every_layer_loads_each_family_it_has_a_module_for(layer):
    package = importlib.import_module(layer)
    for name, module in package.FAMILIES.items():
        assert name in family_names()
        assert module is sys.modules[f"{layer}.{name}"]
    assert set(package.FAMILIES) <= set(family_names())


def test_the_kernel_layer_has_every_declared_family():
    from flowjit.runtime.kernels import FAMILIES
    assert set(FAMILIES) == set(family_names())


def _layer(tmp_path, *modules):
    pkg = tmp_path / "layer_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for m in modules:
        (pkg / f"{m}.py").write_text(f"LOADED = {m!r}\n")
    return pkg


def test_a_family_module_without_declarations_is_reported(tmp_path, monkeypatch):
    pkg = _layer(tmp_path, "math", "signal_ops", "_private")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError, match=r"layer_pkg: signal_ops\.py has no declaration "
                                          r"module in ir/ops/"):
        load_families("layer_pkg", [str(pkg)])
    # named as no family, it is accepted and left for the layer to import
    loaded = load_families("layer_pkg", [str(pkg)], not_families=("signal_ops",))
    assert list(loaded) == ["math"] and loaded["math"].LOADED == "math"
    assert "layer_pkg.signal_ops" not in sys.modules
    for name in [m for m in sys.modules if m.startswith("layer_pkg")]:
        monkeypatch.delitem(sys.modules, name)
