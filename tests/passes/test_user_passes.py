"""User passes: `register_pass(after=/before=)` places a pass in the default schedule, and the
pipeline spec `default,<pass>` means the default schedule (to its fixpoint) then that pass.
Registrations are undone after each test (monkeypatch), so no other test sees them."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from xdsl.passes import ModulePass

import flowjit as tf
from flowjit.passes import PASSES, PLACEMENTS, register_pass
from flowjit.passes.pipeline import DEFAULT_SCHEDULE, default_passes, parse_spec


@pytest.fixture
def registry():
    """PASSES and PLACEMENTS restored after the test."""
    saved_passes, saved_placements = dict(PASSES), dict(PLACEMENTS)
    yield
    PASSES.clear()
    PASSES.update(saved_passes)
    PLACEMENTS.clear()
    PLACEMENTS.update(saved_placements)


def _user_pass(pass_name, seen=None):
    @dataclass(frozen=True)
    class UserPass(ModulePass):
        name = pass_name

        def apply(self, ctx, module):
            if seen is not None:
                seen.append(sorted({op.name for op in module.walk()}))
    return UserPass


def test_after_and_before_place_user_passes_in_the_default_schedule(registry):
    register_pass(after="cse")(_user_pass("user-after-cse"))
    register_pass(before="dce")(_user_pass("user-before-dce"))
    register_pass(after="user-after-cse")(_user_pass("user-after-user"))
    order = default_passes()
    assert order[order.index("cse"):order.index("cse") + 3] == [
        "cse", "user-after-cse", "user-after-user"]
    assert order[-2:] == ["user-before-dce", "dce"]
    assert [p for p in order if not p.startswith("user-")] == list(DEFAULT_SCHEDULE)


def test_a_pass_registered_by_name_only_stays_out_of_the_default_schedule(registry):
    register_pass(_user_pass("user-by-name"))
    assert "user-by-name" not in default_passes()
    assert type(parse_spec("user-by-name")[0]).name == "user-by-name"


@pytest.mark.parametrize("kwargs, message", [
    ({"after": "no-such-pass"}, "'no-such-pass' is not in the default schedule"),
    ({"after": "cse", "before": "dce"}, "after= or before=, not both"),
])
def test_bad_placements_raise(registry, kwargs, message):
    with pytest.raises(ValueError, match=message):
        register_pass(**kwargs)(_user_pass("user-bad"))
    assert "user-bad" not in PASSES


def test_default_is_a_reserved_pass_name(registry):
    with pytest.raises(ValueError, match="'default' names the default schedule"):
        register_pass(_user_pass("default"))


def test_default_then_a_user_pass(registry):
    """`default,user-last` runs the default schedule first: the user pass sees the optimized
    module (x * 1.0 already gone: `arithmetic`), once."""
    seen = []
    register_pass(_user_pass("user-last", seen))
    f = tf.function(lambda x: x * 1.0 - 3.0, passes="default,user-last")
    x = np.array([1.0, -2.0], np.float32)
    np.testing.assert_array_equal(f(tf.constant(x)).numpy(), x - 3.0)
    assert seen == [["builtin.module", "df.const", "df.sub", "func.func", "func.return"]]
    names = [r["name"] for r in f.compiler_ir(tf.constant(x)).pass_report()]
    assert names == ["default", "user-last"]


def test_default_takes_no_options():
    with pytest.raises(ValueError, match="'default' .* takes no options"):
        parse_spec("default{max-size=3},cse")
