"""CI's fixed-seed budget of the differential fuzzer (flowjit/testing/fuzz.py); the long run is
`python -m flowjit.testing.fuzz --programs 10000 --seed 0` (README)."""
from __future__ import annotations

import sys
import time

import numpy as np

from flowjit.testing import fuzz


def test_fixed_seed_budget_has_no_mismatch_and_no_crash():
    result = fuzz.run(programs=16, seed=1000, chunk=16)
    assert result["counts"]["programs"] == 16
    assert result["counts"]["crash"] == 0, result["failures"]
    assert result["counts"]["hang"] == 0, result["failures"]
    assert result["counts"]["mismatch"] == 0, result["failures"]


def test_a_program_that_never_returns_is_named_not_waited_for():
    worker = [sys.executable, "-c", "import json, time; print(json.dumps({'seed': 7, "
              "'status': 'ok'})); print(json.dumps({'seed': 8, 'start': True}), flush=True); "
              "time.sleep(600)"]
    t0 = time.monotonic()
    records, running, _, returncode = fuzz.run_worker(worker, None, program_timeout=3)
    assert time.monotonic() - t0 < 60
    assert [r["seed"] for r in records] == [7]
    assert running == 8 and returncode == -9


def test_logm_of_an_infinite_matrix_ends():
    """SciPy's logm loops forever on a matrix holding inf (seed 305034 hung a run)."""
    result = fuzz.run(programs=1, seed=305034, chunk=1, program_timeout=120)
    assert result["counts"]["ok"] == 1, result["failures"]


def test_ops_with_attributes_and_every_dtype_are_generated():
    ops = fuzz.usable_ops()
    # required attributes made from their declared kinds: axes, permutations, shapes, dtypes
    assert {"add", "exp", "pow", "transpose", "reshape", "tile", "cast", "expand_dims",
            "max_pool", "strided_slice", "concat", "add_n"} <= set(ops)
    assert not {"random_uniform", "assign_variable", "py_function"} & set(ops)   # stateful
    progs = [fuzz.generate(seed) for seed in range(200)]
    assert {p["values"][0].dtype for p in progs} == set(fuzz.DTYPES)
    used = {name for p in progs for name, *_ in p["chain"]}
    assert {"transpose", "reshape", "cast"} <= used
    assert any(attrs for p in progs for _, _, attrs, _ in p["chain"])
    assert any(0 in p["values"][0].shape for p in progs)


def test_tolerance_policy():
    f32 = np.float32
    assert fuzz.close(np.array([1.0, np.nan, -np.inf], f32), np.array([1.00001, np.nan, -np.inf],
                                                                         f32))
    assert not fuzz.close(np.array([1.0, 0.0], f32), np.array([1.0, np.nan], f32))
    assert not fuzz.close(np.array([np.inf], f32), np.array([-np.inf], f32))
    assert fuzz.close(np.array([0.0], f32), np.array([1e-40], f32))   # subnormal flush
    assert not fuzz.close(np.array([3], np.int32), np.array([4], np.int32))
    assert not fuzz.close(np.array([1.0], f32), np.array([1.0], np.float64))
    c64 = np.complex64
    assert fuzz.close(np.array([1 + 2j], c64), np.array([1.00001 + 2j], c64))
    assert not fuzz.close(np.array([1 + 2j], c64), np.array([1 + 2.1j], c64))
    assert not fuzz.close(np.array([True]), np.array([False]))
    # XLA_MASKED_GRADIENTS: a NaN expected may be anything, only when allowed
    assert fuzz.close(np.array([0.0], f32), np.array([np.nan], f32), nan_any=True)
    assert not fuzz.close(np.array([0.0], f32), np.array([np.nan], f32))
    # XLA's allowances for complex special values and f16/bf16 programs, only when allowed
    assert fuzz.close(np.array([np.nan], f32), np.array([np.inf], f32), nonfinite_any=True)
    assert fuzz.close(np.array([1.0], f32), np.array([np.nan], f32), nonfinite_any=True)
    assert not fuzz.close(np.array([1.0], f32), np.array([2.0], f32), nonfinite_any=True)
    assert not fuzz.close(np.array([np.nan], f32), np.array([np.inf], f32))
    assert fuzz.close(np.array([1.1907], f32), np.array([1.1875], f32), tol=5e-2)
    assert not fuzz.close(np.array([1.1907], f32), np.array([1.1875], f32))


def test_a_mismatch_is_printed_as_runnable_code():
    prog = fuzz.generate(3)
    code = fuzz.source(prog)
    compile(code, "<repro>", "exec")
    assert all(f"apply({name!r}" in code for name, *_ in prog["chain"])
    env = {}
    exec(compile(code.split("def program")[0], "<repro>", "exec"), env)   # the imports run


def test_normwise_comparison_scales_only_the_absolute_tolerance():
    big = np.array([[4e8, 1.5e-9], [2.0, 1.0]])
    off = big + np.array([[0.0, 1e-6], [0.0, 0.0]])
    assert not fuzz.close(off, big)
    assert fuzz.close(off, big, normwise=True)
    assert not fuzz.close(big * (1 + 1e-3), big, normwise=True)   # relative errors still count
    c = (big + 1j * big).astype(np.complex128)
    assert fuzz.close(c + 1e-6j, c, normwise=True) and not fuzz.close(c + 1e-6j, c)


def test_nan_either_accepts_a_nan_on_either_side_only():
    f64 = np.float64
    assert not fuzz.close(np.array([np.nan, 1.0], f64), np.array([0.0, 1.0], f64))
    assert fuzz.close(np.array([np.nan, 1.0], f64), np.array([0.0, 1.0], f64), nan_either=True)
    assert fuzz.close(np.array([np.inf, 1.0], f64), np.array([np.nan, 1.0], f64),
                      nan_either=True)
    assert not fuzz.close(np.array([np.nan, 2.0], f64), np.array([0.0, 1.0], f64),
                          nan_either=True)
