"""CI's fixed-seed budget of the differential fuzzer (flowjit/testing/fuzz.py); the long run is
`python -m flowjit.testing.fuzz --programs 10000 --seed 0` (README)."""
from __future__ import annotations

import numpy as np

from flowjit.testing import fuzz


def test_fixed_seed_budget_has_no_mismatch_and_no_crash():
    result = fuzz.run(programs=16, seed=1000, chunk=16)
    assert result["counts"]["programs"] == 16
    assert result["counts"]["crash"] == 0, result["failures"]
    assert result["counts"]["mismatch"] == 0, result["failures"]


def test_every_usable_registry_op_is_generated():
    ops = fuzz.usable_ops()
    assert {"add", "exp", "maximum", "pow"} <= set(ops)


def test_tolerance_policy():
    f32 = np.float32
    assert fuzz.close(np.array([1.0, np.nan, -np.inf], f32), np.array([1.00001, np.nan, -np.inf],
                                                                         f32))
    assert not fuzz.close(np.array([1.0, 0.0], f32), np.array([1.0, np.nan], f32))
    assert not fuzz.close(np.array([np.inf], f32), np.array([-np.inf], f32))
    assert fuzz.close(np.array([0.0], f32), np.array([1e-40], f32))   # subnormal flush
    assert not fuzz.close(np.array([3], np.int32), np.array([4], np.int32))
    assert not fuzz.close(np.array([1.0], f32), np.array([1.0], np.float64))


def test_a_mismatch_is_printed_as_runnable_code():
    prog = fuzz.generate(3)
    code = fuzz.source(prog)
    compile(code, "<repro>", "exec")
    assert all(f"apply({name!r}" in code for name, _ in prog["chain"])
