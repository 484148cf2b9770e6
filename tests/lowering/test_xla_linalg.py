"""matmul, tensordot, einsum and top_k under jit_compile=True (lowering/stablehlo/linalg.py),
against the eager run (the NumPy kernels) and references in float64 / exact integers.

Tolerance: a float result that sums k products is compared with
|got - exact| <= rtol * (|exact| + |a| @ |b|), the error bound of any summation order, with
rtol 1e-5 (float32: XLA's dot sums in its own order, with FMA), 1e-12 (float64), 2e-3
(float16) and 1.6e-2 (bfloat16; both accumulate in float32 and round once, so they may differ
by an ulp or two from the kernel). Integer results (which wrap) must be equal.
"""
from __future__ import annotations

import importlib.util
import itertools
import os

import numpy as np
import pytest

import flowjit as tf
from flowjit.ir import dtypes as D
from flowjit.lowering.stablehlo import RULES
from helpers import tensordot_equation
from xla_helpers import TOL, is_float, run_xla, run_eager, wrap_int as _wrap

MATMUL_DTYPES = [D.float16, D.bfloat16, D.float32, D.float64, D.int32, D.int64]


def check_sum_of_products(got, exact, bound, dt, what):
    """`exact` and `bound` (the same sum over absolute values) in float64 or Python ints."""
    got = np.asarray(got)
    exact = np.asarray(exact)
    assert got.shape == exact.shape, (what, got.shape, exact.shape)
    assert got.dtype == np.dtype(dt), (what, got.dtype, dt)
    if not is_float(dt):
        np.testing.assert_array_equal(got, _wrap(exact, dt), err_msg=what)
        return
    exact = exact.astype(np.float64)
    err = np.abs(got.astype(np.float64) - exact)
    limit = TOL[np.dtype(dt)] * (np.abs(exact) + np.asarray(bound, np.float64)) + 1e-300
    assert (err <= limit).all(), (what, got, exact)


def check_close(got, expected, dt, what):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype, (what, got, expected)
    if is_float(dt):
        r = TOL[np.dtype(dt)]
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64),
                                   rtol=r, atol=r, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, expected, err_msg=what)


def make(rng, shape, dt, low=-3, high=3):
    """float32-exact floats; integers small enough that int64 inputs stay 32-bit exact (the
    products still wrap for int32 with the large values mixed in)."""
    dt = np.dtype(dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        vals = rng.integers(max(info.min, -(2 ** 31)), min(info.max, 2 ** 31 - 1),
                            size=shape, endpoint=True)
        small = rng.integers(low, high, size=shape, endpoint=True)
        return np.where(rng.random(shape) < 0.5, vals, small).astype(dt)
    return rng.uniform(low, high, size=shape).astype(np.float32).astype(dt)


def exact(a):
    return a.astype(np.float64) if is_float(a.dtype) else a.astype(object)


def test_every_linalg_op_has_a_rule():
    assert [n for n in ("matmul", "tensordot", "einsum", "top_k")
            if f"df.{n}" not in RULES] == []


# --- matmul --------------------------------------------------------------------------------
# (shape of a, shape of b) before any transpose
MATMUL_SHAPES = [((3, 4), (4, 2)), ((2, 1, 3, 4), (5, 4, 6)), ((3, 4), (1, 2, 4, 3)),
                 ((0, 4), (4, 3)), ((2, 0), (0, 3)), ((0, 2, 3), (3, 1))]


@pytest.mark.parametrize("dt", MATMUL_DTYPES, ids=[d.name for d in MATMUL_DTYPES])
def test_matmul(dt):
    rng = np.random.default_rng(1)
    cases, arrays = [], []
    for (sa, sb), (ta, tb) in itertools.product(MATMUL_SHAPES, [(False, False), (True, False),
                                                                (False, True), (True, True)]):
        a, b = make(rng, sa, dt.np), make(rng, sb, dt.np)
        cases.append((len(arrays), ta, tb, a, b))
        # a transposed operand is stored transposed, so the product stays a @ b
        arrays += [np.swapaxes(a, -1, -2).copy() if ta else a,
                   np.swapaxes(b, -1, -2).copy() if tb else b]

    def fn(*ts):
        return [tf.matmul(ts[k], ts[k + 1], transpose_a=ta, transpose_b=tb)
                for k, ta, tb, _, _ in cases]
    got, eager = run_xla(fn, *arrays), run_eager(fn, *arrays)
    for (k, ta, tb, a, b), g, e in zip(cases, got, eager):
        what = f"{a.shape} @ {b.shape} transpose_a={ta} transpose_b={tb}"
        ex = np.matmul(exact(a), exact(b))
        bound = np.matmul(np.abs(exact(a)), np.abs(exact(b))) if is_float(dt.np) else None
        check_sum_of_products(g, ex, bound, dt.np, what + " vs reference")
        check_sum_of_products(g, e.astype(np.float64) if is_float(dt.np) else e, bound,
                              dt.np, what + " vs eager")


@pytest.mark.parametrize("dt", [np.int8, np.uint8], ids=["int8", "uint8"])
def test_matmul_narrow_ints_to_int32(dt):
    rng = np.random.default_rng(2)
    info = np.iinfo(dt)
    a = rng.integers(info.min, info.max, size=(2, 3, 40), endpoint=True).astype(dt)
    b = rng.integers(info.min, info.max, size=(40, 5), endpoint=True).astype(dt)

    def fn(x, y):
        return [tf.matmul(x, y, output_type=tf.int32),
                tf.matmul(y, x, transpose_a=True, transpose_b=True, output_type=tf.int32)]
    got, eager = run_xla(fn, a, b), run_eager(fn, a, b)
    ex = np.matmul(a.astype(object), b.astype(object))
    check_sum_of_products(got[0], ex, None, np.int32, "a @ b")
    check_sum_of_products(got[1], np.swapaxes(ex, -1, -2), None, np.int32, "b^T @ a^T")
    for g, e in zip(got, eager):
        np.testing.assert_array_equal(g, e)


def test_matmul_nan_and_inf_propagate():
    a = np.array([[1.0, np.nan], [np.inf, 1.0], [2.0, 3.0]], np.float32)
    b = np.array([[1.0, 0.0], [2.0, -1.0]], np.float32)
    got = run_xla(lambda x, y: tf.matmul(x, y), a, b)
    check_close(got, run_eager(lambda x, y: tf.matmul(x, y), a, b), np.float32, "matmul")
    with np.errstate(invalid="ignore"):
        check_close(got, (a.astype(np.float64) @ b).astype(np.float32), np.float32, "ref")


# --- tensordot -----------------------------------------------------------------------------
TENSORDOT_CASES = [((2, 3, 4), (4, 3, 5), [1, 2], [1, 0]), ((2, 3), (4,), [], []),
                   ((3,), (3,), [0], [0]), ((2, 3, 4), (3, 4, 2), [-2, -1], [0, 1]),
                   ((), (), [], []), ((2, 0), (0, 3), [1], [0]), ((3, 2), (2, 3), [0, 1], [1, 0])]


def tensordot_ref(a, b, axes_a, axes_b):
    """tensordot as an explicit einsum (float64 / Python ints): an independent route."""
    axes_a = [x % a.ndim for x in axes_a]
    axes_b = [x % b.ndim for x in axes_b]
    eq = tensordot_equation(a.ndim, b.ndim, axes_a, axes_b)
    ex = np.einsum(eq, exact(a), exact(b))
    bound = np.einsum(eq, np.abs(exact(a)), np.abs(exact(b))) if is_float(a.dtype) else None
    return ex, bound


@pytest.mark.parametrize("dt", MATMUL_DTYPES, ids=[d.name for d in MATMUL_DTYPES])
def test_tensordot(dt):
    rng = np.random.default_rng(3)
    arrays = []
    for sa, sb, _, _ in TENSORDOT_CASES:
        arrays += [make(rng, sa, dt.np), make(rng, sb, dt.np)]

    def fn(*ts):
        return [tf.tensordot(ts[2 * i], ts[2 * i + 1], [aa, ab])
                for i, (_, _, aa, ab) in enumerate(TENSORDOT_CASES)]
    got, eager = run_xla(fn, *arrays), run_eager(fn, *arrays)
    for i, (sa, sb, aa, ab) in enumerate(TENSORDOT_CASES):
        ex, bound = tensordot_ref(arrays[2 * i], arrays[2 * i + 1], aa, ab)
        what = f"tensordot {sa} {sb} {aa} {ab}"
        check_sum_of_products(got[i], ex, bound, dt.np, what + " vs reference")
        check_sum_of_products(got[i], eager[i].astype(np.float64) if is_float(dt.np)
                              else eager[i], bound, dt.np, what + " vs eager")


# --- einsum --------------------------------------------------------------------------------
def _einsum_cases_of_the_op_tests():
    """EINSUM_CASES of tests/ops/test_linalg.py (equation, shapes, float64 reference), so
    every equation the kernel is tested with is lowered too."""
    path = os.path.join(os.path.dirname(__file__), "..", "ops", "test_linalg.py")
    spec = importlib.util.spec_from_file_location("_op_tests_linalg", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.EINSUM_CASES


EXTRA_EINSUM_CASES = [
    ("...ii,...i->...i", [(3, 1, 4, 4), (2, 4)],
     lambda a, b: np.diagonal(a, axis1=-2, axis2=-1) * b),
    ("iij,kj,jl->lk", [(3, 3, 4), (2, 4), (4, 5)],
     lambda a, b, c: (c.T * sum(a[i, i] for i in range(3))[None, :]) @ b.T),
    ("iii->i", [(3, 3, 3)], lambda a: np.array([a[i, i, i] for i in range(3)])),
    ("i...,j...->ij...", [(2, 1, 3), (4, 5, 1)],
     lambda a, b: a[:, None] * b[None, :]),
    ("ab,cd,bd->ac", [(2, 3), (4, 5), (3, 5)], lambda a, b, c: a @ c @ b.T),
    ("bij,bj->bi", [(3, 2, 4), (3, 4)], lambda a, b: (a @ b[:, :, None])[:, :, 0]),
    ("ij,ij->ij", [(0, 2), (0, 2)], lambda a, b: a * b),
    ("i,->i", [(3,), ()], lambda a, b: a * b),
]


def _einsum_case_ids(cases):
    return [f"{i}:{c[0]}" for i, c in enumerate(cases)]


ALL_EINSUM_CASES = _einsum_cases_of_the_op_tests() + EXTRA_EINSUM_CASES


@pytest.mark.parametrize("eq,in_shapes,ref", ALL_EINSUM_CASES,
                         ids=_einsum_case_ids(ALL_EINSUM_CASES))
def test_einsum(eq, in_shapes, ref):
    """One compile per equation, computing it for every dtype."""
    rng = np.random.default_rng(len(eq))
    arrays = [make(rng, s, dt.np, -2, 2) for dt in MATMUL_DTYPES for s in in_shapes]
    n = len(in_shapes)

    def fn(*ts):
        return [tf.einsum(eq, *ts[i * n:(i + 1) * n]) for i in range(len(MATMUL_DTYPES))]
    got, eager = run_xla(fn, *arrays), run_eager(fn, *arrays)
    for i, dt in enumerate(MATMUL_DTYPES):
        xs = arrays[i * n:(i + 1) * n]
        if is_float(dt.np):
            ex = np.asarray(ref(*[x.astype(np.float64) for x in xs]))
            bound = np.asarray(ref(*[np.abs(x.astype(np.float64)) for x in xs]))
            check_sum_of_products(got[i], ex, bound, dt.np, f"{eq} {dt.name} vs reference")
            check_sum_of_products(got[i], eager[i].astype(np.float64), bound, dt.np,
                                  f"{eq} {dt.name} vs eager")
        else:
            ex = np.asarray(ref(*[x.astype(object) for x in xs]))
            check_sum_of_products(got[i], ex, None, dt.np, f"{eq} {dt.name} vs reference")
            np.testing.assert_array_equal(got[i], eager[i])


def test_einsum_diagonal_is_exact_with_nan_and_inf_off_it():
    a = np.array([[1.5, np.nan, np.inf], [-np.inf, -0.0, np.nan], [np.nan, 2.0, np.nan]],
                 np.float32)
    got = run_xla(lambda x: [tf.einsum("ii->i", x), tf.einsum("ii", x)], a)
    np.testing.assert_array_equal(got[0], np.diagonal(a))
    assert np.signbit(got[0][1])
    assert np.isnan(got[1])


# --- top_k ---------------------------------------------------------------------------------
def top_k_ref(x, k):
    """Largest first; NaN above everything; the lower index first among equal values."""
    rows = x.reshape(int(np.prod(x.shape[:-1])), x.shape[-1])
    idx = np.zeros((rows.shape[0], k), np.int64)
    for r, row in enumerate(rows):
        def key(i):
            v = float(row[i]) if is_float(x.dtype) else int(row[i])
            return (0, 0, i) if v != v else (1, -v, i)
        idx[r] = sorted(range(len(row)), key=key)[:k]
    idx = idx.reshape(x.shape[:-1] + (k,))
    return np.take_along_axis(x, idx, axis=-1), idx


TOP_K_DTYPES = list(D.NUMERIC)


@pytest.mark.parametrize("dt", TOP_K_DTYPES, ids=[d.name for d in TOP_K_DTYPES])
def test_top_k(dt):
    rng = np.random.default_rng(4)
    x = make(rng, (5, 7), dt.np, -3, 3)
    if dt.is_integer:
        x = (x % 5).astype(dt.np)      # plenty of ties
    else:
        x[0] = [1.0, np.nan, 2.0, np.nan, -np.inf, np.inf, 2.0]
        x[1] = [0.0, -0.0, 0.0, -1.0, -0.0, 1.0, 1.0]
        x[2] = np.nan
    y = make(rng, (2, 3, 4), dt.np, -3, 3)
    empty = np.zeros((2, 0), dt.np)
    cases = [(0, 0, D.int32), (0, 1, D.int64), (0, 3, D.int16), (0, 7, D.int32),
             (1, 2, D.int32), (2, 0, D.int64)]

    def fn(a, b, c):
        ts = (a, b, c)
        out = []
        for k_in, k, it in cases:
            values, indices = tf.math.top_k(ts[k_in], k=k, index_type=it)
            out += [values, indices]
        return out
    got, eager = run_xla(fn, x, y, empty), run_eager(fn, x, y, empty)
    for i, (k_in, k, it) in enumerate(cases):
        values, indices = got[2 * i], got[2 * i + 1]
        ref_v, ref_i = top_k_ref((x, y, empty)[k_in], k)
        what = f"top_k input {k_in} k={k} {it.name}"
        assert indices.dtype == it.np, what
        np.testing.assert_array_equal(indices, ref_i.astype(it.np), err_msg=what)
        np.testing.assert_array_equal(indices, eager[2 * i + 1], err_msg=what)
        # values are gathered, not computed: equal to the bit (0.0 / -0.0 included)
        assert values.dtype == np.dtype(dt.np)
        np.testing.assert_array_equal(values.view(f"u{values.itemsize}"),
                                      ref_v.view(f"u{ref_v.itemsize}"), err_msg=what)
        np.testing.assert_array_equal(values.view(f"u{values.itemsize}"),
                                      eager[2 * i].view(f"u{values.itemsize}"), err_msg=what)


def test_int64_products_beyond_32_bits_wrap():
    """64-bit arguments travel as 32-bit values (see _to_wire), so the large int64 values are
    made inside the function."""
    rng = np.random.default_rng(6)
    a, b = make(rng, (3, 5), np.int32), make(rng, (5, 2), np.int32)
    scale = 2 ** 33 + 7

    def fn(x, y):
        x = tf.cast(x, tf.int64) * tf.constant(scale, tf.int64)
        y = tf.cast(y, tf.int64)
        return [tf.matmul(x, y), tf.tensordot(x, y, 1), tf.einsum("ij,jk->ki", x, y)]
    big = _wrap(a.astype(object) * scale, np.int64)
    ex = np.matmul(big.astype(object), b.astype(object))
    got, eager = run_xla(fn, a, b), run_eager(fn, a, b)
    for g, e, r in zip(got, eager, [ex, ex, ex.T]):
        check_sum_of_products(g, r, None, np.int64, "int64")
        np.testing.assert_array_equal(g, e)
