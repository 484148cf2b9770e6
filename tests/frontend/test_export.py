"""`tf_export` marks public names where they are defined; namespace modules install them."""
import pytest

from flowjit.frontend import export


def test_install_binds_exports_and_refuses_shadowing(monkeypatch):
    monkeypatch.setattr(export, "EXPORTS", {})

    def f():
        pass

    def g():
        pass
    export.tf_export("testns.f", "f")(f)
    namespace = {}
    export.install(namespace, "testns")
    assert namespace["f"] is f
    top = {}
    export.install(top, "")
    assert top == {"f": f}
    with pytest.raises(ValueError, match="already bound|binds"):
        export.install({"f": g}, "testns")


def test_one_name_two_objects_raises(monkeypatch):
    monkeypatch.setattr(export, "EXPORTS", {})
    export.tf_export("math.h")(len)
    export.tf_export("math.h")(len)          # the same object again is fine
    with pytest.raises(ValueError, match="already exported"):
        export.tf_export("math.h")(abs)
    with pytest.raises(TypeError):
        export.tf_export()
