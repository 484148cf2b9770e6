"""Reductions, argmax/argmin and scans under jit_compile=True (lowering/stablehlo/reduce.py),
against the eager run (the NumPy kernels) and references written here with Python loops,
float64 and exact integers.

One jit function computes every reduction / axis / keepdims variant for a dtype and shape, so
compiles stay few. Tolerances: sums and products of positive floats are compared with
rtol = atol = 1e-5 (float32; XLA sums in another order), 1e-12 (float64), 2e-3 (float16) and
1.6e-2 (bfloat16): float16/bfloat16 accumulate in float32 and round once, so they are off by
at most an ulp or two. Integer, bool and index results must be equal.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import flowjit as tf
from flowjit.ir import dtypes as D
from flowjit.ir.ops import reduce as R
from flowjit.lowering.stablehlo import RULES
from xla_helpers import BF16, is_float, run_xla, run_eager, check, wrap_int as _wrap

NUMERIC = list(D.NUMERIC)


_DRAWN_AS = {np.dtype(np.int64): np.int32, np.dtype(np.uint64): np.uint32}


def make(rng, shape, dt, low=0.5, high=2.0):
    """Floats in [low, high) (positive: sums and products without cancellation), float32-exact;
    integers over the dtype's range (64-bit: the 32-bit range NumPy's generator draws from),
    so sums and products wrap."""
    dt = np.dtype(dt)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(_DRAWN_AS.get(dt, dt))
        return rng.integers(info.min, info.max, size=shape, endpoint=True).astype(dt)
    return rng.uniform(low, high, size=shape).astype(np.float32).astype(dt)


def test_every_reduce_op_has_a_rule():
    names = list(R.REDUCTIONS) + ["argmax", "argmin", "cumsum", "cumprod"]
    assert [n for n in names if f"df.{n}" not in RULES] == []


# --- reductions ----------------------------------------------------------------------------
def _axis_tuple(axis, rank):
    return tuple(range(rank)) if axis is None else tuple(sorted(a % rank for a in axis))


def reduce_ref(name, x, axis, keepdims):
    """Reduce with Python arithmetic over the reduced positions of each output element."""
    rank = x.ndim
    axes = _axis_tuple(axis, rank)
    out_shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    floating = is_float(x.dtype)
    count = int(np.prod([x.shape[a] for a in axes]))
    out = np.empty(out_shape, dtype=object)
    for idx in np.ndindex(*out_shape):
        sl = tuple(slice(None) if i in axes else idx[i] for i in range(rank))
        vals = [float(v) if floating else int(v) for v in np.asarray(x[sl]).ravel()]
        if name == "reduce_sum":
            r = sum(vals)
        elif name == "reduce_prod":
            r = 1
            for v in vals:
                r *= v
        elif name in ("reduce_max", "reduce_min") and any(v != v for v in vals):
            r = np.nan                                   # NaN propagates
        elif name == "reduce_max":
            r = max(vals, default=-np.inf if floating else np.iinfo(x.dtype).min)
        elif name == "reduce_min":
            r = min(vals, default=np.inf if floating else np.iinfo(x.dtype).max)
        elif name == "reduce_any":
            r = any(vals)
        elif name == "reduce_all":
            r = all(vals)
        elif floating:  # reduce_mean
            r = sum(vals) / count if count else np.nan
        else:  # int64 sum (wrapping), divided with C truncation; empty -> 0
            s = int(_wrap(np.array([sum(vals)], dtype=object), np.int64)[0])
            r = (abs(s) // count) * (1 if s >= 0 else -1) if count else 0
        out[idx] = r
    if not keepdims:
        out = out.reshape(tuple(d for i, d in enumerate(x.shape) if i not in axes))
    if x.dtype.kind == "b":
        return out.astype(bool)
    if floating:
        with np.errstate(over="ignore"):
            return out.astype(np.float64).astype(x.dtype)
    return _wrap(out, x.dtype)


AXES = {3: [None, (0,), (-1,), (0, 2), (), (1, -3)], 0: [None, ()]}
SHAPES = [(3, 4, 5), (2, 0, 3), ()]
TF_FN = {"reduce_sum": tf.reduce_sum, "reduce_mean": tf.reduce_mean,
         "reduce_prod": tf.reduce_prod, "reduce_max": tf.reduce_max,
         "reduce_min": tf.reduce_min, "reduce_any": tf.reduce_any, "reduce_all": tf.reduce_all}


@pytest.mark.parametrize("shape", SHAPES, ids=[str(s) for s in SHAPES])
@pytest.mark.parametrize("dt", NUMERIC + [D.bool_], ids=[d.name for d in NUMERIC] + ["bool"])
def test_reductions(dt, shape):
    assert set(TF_FN) == set(R.REDUCTIONS)
    names = [n for n, allowed in R.REDUCTIONS.items() if dt in allowed]
    x = make(np.random.default_rng(1), shape, dt.np)
    variants = [(n, ax, kd) for n in names for ax in AXES[len(shape)]
                for kd in (False, True)]

    def fn(t):
        return [TF_FN[n](t, axis=None if ax is None else list(ax), keepdims=kd)
                for n, ax, kd in variants]
    got, eager = run_xla(fn, x), run_eager(fn, x)
    for (n, ax, kd), g, e in zip(variants, got, eager):
        what = f"{n} axis={ax} keepdims={kd}"
        check(g, e, dt.np, what + " vs eager")
        check(g, reduce_ref(n, x, ax, kd), dt.np, what + " vs reference")


def test_float_reductions_with_nan_and_inf():
    x = np.array([[1.0, np.nan, 3.0], [np.inf, -np.inf, 2.0], [-np.inf, 0.5, -2.0],
                  [np.inf, 1.0, 2.0]], np.float32)
    names = list(R.REDUCTIONS)[:5]

    def fn(t):
        return [TF_FN[n](t, axis=1) for n in names]
    with np.errstate(invalid="ignore"):  # the kernels warn on inf - inf
        eager = run_eager(fn, x)
    for n, g, e in zip(names, run_xla(fn, x), eager):
        check(g, e, np.float32, n + " vs eager")
        with np.errstate(invalid="ignore"):
            check(g, reduce_ref(n, x, (1,), False), np.float32, n + " vs reference")


@pytest.mark.parametrize("dt", [np.float16, BF16], ids=["float16", "bfloat16"])
def test_half_precision_accumulates_in_float32(dt):
    """3000 ones: a float16 accumulator would stop at 2048 (its spacing there is 2)."""
    x = np.ones((3000,), dt)

    def fn(t):
        return [tf.reduce_sum(t), tf.reduce_mean(t), tf.cumsum(t)[-1]]
    for g, e in zip(run_xla(fn, x), [3000.0, 1.0, 3000.0]):
        assert float(g) == float(np.asarray(e, dt)), (g, e)


def test_integer_mean_truncates_and_does_not_overflow():
    x = np.array([[-128, -128, -128, 127, 127], [127, 127, 127, 127, -1]], np.int8)
    got = run_xla(lambda t: [tf.reduce_mean(t, 1), tf.reduce_mean(t)], x)
    np.testing.assert_array_equal(got[0], np.array([-26, 101], np.int8))  # -130/5, 507/5
    np.testing.assert_array_equal(got[1], np.array(37, np.int8))          # 377/10


# --- argmax / argmin -----------------------------------------------------------------------
def arg_ref(x, axis, largest):
    """First index of the best value; NaN counts as -inf (argmax) / +inf (argmin)."""
    x = np.moveaxis(np.asarray(x), axis, -1)
    fill = -np.inf if largest else np.inf
    out = np.zeros(x.shape[:-1], np.int64)
    for idx in np.ndindex(*x.shape[:-1]):
        best, best_i = None, 0
        for i, v in enumerate(x[idx]):
            v = float(v) if is_float(x.dtype) else int(v)
            if v != v:
                v = fill
            if best is None or (v > best if largest else v < best):
                best, best_i = v, i
        out[idx] = best_i
    return out


def _arg_input(rng, dt, shape):
    x = make(rng, shape, dt.np, -3.0, 3.0)
    if dt.is_integer:  # plenty of ties
        x = (x % 4).astype(dt.np)
    if dt.is_floating and shape == (5, 6):
        x[1] = np.nan                                      # all NaN: index 0
        x[2, :3] = [np.nan, -np.inf, np.nan]               # NaN beside -inf
        x[3, 1:4] = [np.inf, np.nan, np.inf]
        x[4] = [0.0, -0.0, 1.0, 1.0, -0.0, 0.0]            # ties, signed zeros
    return x


ARG_CASES = [((5, 6), 1), ((5, 6), 0), ((5, 6), -1), ((2, 3, 4), 1), ((0, 3), 1), ((7,), 0)]


@pytest.mark.parametrize("dt", NUMERIC + [D.bool_], ids=[d.name for d in NUMERIC] + ["bool"])
def test_argmax_argmin(dt):
    rng = np.random.default_rng(2)
    shapes = sorted({s for s, _ in ARG_CASES})
    xs = [_arg_input(rng, dt, s) for s in shapes]
    out_types = [D.int64, D.int32, D.int16]
    cases = [(shapes.index(s), ax, largest, out_types[i % 3])
             for i, ((s, ax), largest) in enumerate(itertools.product(ARG_CASES, (True, False)))]

    def fn(*ts):
        return [(tf.argmax if largest else tf.argmin)(ts[k], axis=ax, output_type=ot)
                for k, ax, largest, ot in cases]
    got, eager = run_xla(fn, *xs), run_eager(fn, *xs)
    for (k, ax, largest, ot), g, e in zip(cases, got, eager):
        what = f"{'argmax' if largest else 'argmin'} {shapes[k]} axis={ax} {ot.name}"
        check(g, e, ot.np, what + " vs eager")
        check(g, arg_ref(xs[k], ax, largest).astype(ot.np), ot.np, what + " vs reference")


# --- cumsum / cumprod ----------------------------------------------------------------------
def scan_ref(x, axis, product, exclusive, reverse):
    floating = is_float(x.dtype)
    x = np.moveaxis(np.asarray(x), axis, -1)
    out = np.empty(x.shape, dtype=object)
    n = x.shape[-1]
    for idx in np.ndindex(*x.shape[:-1]):
        row = [float(v) if floating else int(v) for v in x[idx]]
        order = range(n - 1, -1, -1) if reverse else range(n)
        acc = 1 if product else 0
        for i in order:
            if exclusive:
                out[idx + (i,)] = acc
            acc = acc * row[i] if product else acc + row[i]
            if not exclusive:
                out[idx + (i,)] = acc
    out = np.moveaxis(out, -1, axis)
    if floating:
        return out.astype(np.float64).astype(x.dtype)
    return _wrap(out, x.dtype)


def _check_scans(dt, shapes, cases, seed):
    """cases: (input index, axis, product?, exclusive, reverse)."""
    rng = np.random.default_rng(seed)
    # products of factors near 1 stay finite over 37 steps
    xs = [make(rng, s, dt.np, 0.8, 1.25) for s in shapes]

    def fn(*ts):
        return [(tf.math.cumprod if prod else tf.cumsum)(ts[k], axis=ax, exclusive=ex,
                                                         reverse=rev)
                for k, ax, prod, ex, rev in cases]
    got, eager = run_xla(fn, *xs), run_eager(fn, *xs)
    for (k, ax, prod, ex, rev), g, e in zip(cases, got, eager):
        what = (f"{'cumprod' if prod else 'cumsum'} {shapes[k]} axis={ax} exclusive={ex} "
                f"reverse={rev}")
        check(g, e, dt.np, what + " vs eager")
        check(g, scan_ref(xs[k], ax, prod, ex, rev), dt.np, what + " vs reference")


FLAGS = list(itertools.product((False, True), (False, True), (False, True)))


@pytest.mark.parametrize("dt", NUMERIC, ids=[d.name for d in NUMERIC])
def test_cumsum_cumprod(dt):
    # XLA compiles each scan in ~0.1 s, so every dtype gets the flag combinations on one
    # axis and test_scan_shapes covers the other shapes and axes
    cases = [(0, 1, prod, ex, rev) for prod, ex, rev in FLAGS]
    cases += [(0, -2, prod, True, True) for prod in (False, True)]
    _check_scans(dt, [(3, 37)], cases, 3)


@pytest.mark.parametrize("dt", [D.float32, D.int32], ids=["float32", "int32"])
def test_scan_shapes(dt):
    shapes = [(5, 2, 4), (2, 0), (1,)]
    cases = [(0, ax, prod, ex, rev) for ax in (-3, 1) for prod, ex, rev in FLAGS]
    cases += [(k, ax, prod, ex, rev) for k, ax in ((1, 1), (1, 0), (2, 0))
              for prod, ex, rev in FLAGS[::3]]
    _check_scans(dt, shapes, cases, 4)


def test_int64_values_beyond_32_bits_wrap():
    """64-bit arguments travel as 32-bit values (see _to_wire), so the large int64 values are
    made inside the function."""
    x = make(np.random.default_rng(5), (4, 6), np.int32)
    scale = 2 ** 40 + 3

    def fn(t):
        big = tf.cast(t, tf.int64) * tf.constant(scale, tf.int64)
        return [tf.reduce_sum(big, 1), tf.reduce_prod(big, 0), tf.reduce_mean(big),
                tf.reduce_max(big, 1), tf.argmin(big, 1), tf.cumsum(big, 1)]
    big = _wrap(x.astype(object) * scale, np.int64)
    expected = [reduce_ref("reduce_sum", big, (1,), False),
                reduce_ref("reduce_prod", big, (0,), False),
                reduce_ref("reduce_mean", big, None, False),
                reduce_ref("reduce_max", big, (1,), False),
                arg_ref(big, 1, False), scan_ref(big, 1, False, False, False)]
    for i, (g, e, r) in enumerate(zip(run_xla(fn, x), run_eager(fn, x), expected)):
        check(g, e, np.int64, f"output {i} vs eager")
        check(g, r, np.int64, f"output {i} vs reference")
