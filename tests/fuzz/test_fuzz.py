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


def _program(chain, values, wrap="none", k=0, variable=False, grad=False):
    return {"seed": 0, "values": [np.asarray(v) for v in values], "chain": chain, "wrap": wrap,
            "k": k, "variable": variable, "grad": grad}


def test_a_difference_within_the_programs_conditioning_is_accepted():
    # seed 351167: tan(exp(bessel_i0(x))) at x = -4.1 turns bessel_i0's 1-ulp difference
    # under XLA into 1.2e-9; eager itself moves further when x moves by a few ulps
    x = np.array([-4.107924972021367, 0.2841653306725413])
    prog = _program([("bessel_i0", [1], {}, None), ("exp", [2], {}, None),
                     ("tan", [3], {}, None)], [x, x])
    assert fuzz.run_program(prog)["status"] == "ok"

    def program(x0, x1):
        return fuzz._build(prog)(x0, x1)
    want = (np.tan(np.exp(np.i0(x))),)
    # 1e-9 off at both: within the spread at x = -4.1, not at the well-conditioned 0.28
    moved = (want[0] + 1e-9,)
    accepted = fuzz._within_conditioning(program, prog["values"], moved, want)[0]
    assert accepted.tolist() == [want[0][0], moved[0][1]]
    far = (want[0] + 1e-3,)   # well outside what 4 ulps of x move
    assert fuzz._within_conditioning(program, prog["values"], far, want)[0].tolist() == \
        far[0].tolist()
    ints = [np.array([1, 2], np.int32)] * 2   # no float input: no allowance
    assert fuzz._within_conditioning(program, ints, moved, want) is None


def test_xla_abs_of_the_integer_minimum_is_tfs_xla_behaviour():
    # seed 352574: XLA takes abs(x) >= 0; TF 2.21 under jit_compile gives -1 as well
    chain = [("abs", [0], {}, None), ("floordiv", [1, 2], {}, None)]
    a = np.array([[-4, 5], [np.iinfo(np.int32).min, 4]], np.int32)
    b = np.array([[0, 3], [-2, 4]], np.int32)
    assert fuzz.run_program(_program(chain, [a, b]))["status"] == "ok"


def test_a_gradient_kernel_refusing_values_of_a_disconnected_branch_is_tfs_behaviour():
    # seed 357845: eager's gradient is None (the case takes zeros_like); the traced gradient
    # runs slogdet's backward, whose matrix_inverse refuses a matrix holding -inf, as TF's
    m = np.array([[[-1.8674, 1.2233], [-0.0012568, -np.inf]], [[1., 2.], [3., 4.]]])
    chain = [("matrix_inverse", [0], {"adjoint": True}, None),
             ("log_matrix_determinant", [2], {}, 1)]
    prog = _program(chain, [m, np.array([1.0, 2.0])], wrap="case", k=0, grad=True)
    assert fuzz.run_program(prog)["status"] == "ok"
    # a forward program that refuses its values is eager's refusal, not excused as a gradient's
    forward_error = _program([("matrix_inverse", [0], {}, None)],
                             [np.zeros((2, 2)), np.ones(2)], wrap="case", k=0, grad=True)
    assert fuzz.run_program(forward_error)["status"] == "eager-error:InvalidArgumentError"


def test_extreme_inputs_are_nan_inf_or_huge_in_either_part():
    assert fuzz._extreme(np.array([1.0, np.nan])) and fuzz._extreme(np.array([-1e30]))
    assert fuzz._extreme(np.array([1 + 1e30j], np.complex64))
    assert not fuzz._extreme(np.array([1e29, -3.0]))
    assert not fuzz._extreme(np.array([2**31 - 1], np.int32))   # integers are not floats


def test_normwise_conditioning_takes_the_results_largest_spread():
    # a result whose first element moves by 2 per ulp-step and whose second does not move
    def program(x0, x1):
        return x0 * np.array([1e16, 0.0]) + x1
    values = [np.array([1.0, 1.0]), np.array([0.0, 5.0])]
    want = (np.array([1e16, 5.0]),)
    got = (np.array([1e16, 5.5]),)
    assert fuzz._within_conditioning(program, values, got, want)[0].tolist() == [1e16, 5.5]
    assert fuzz._within_conditioning(program, values, got, want,
                                     normwise=True)[0].tolist() == [1e16, 5.0]
