"""tf.nn's fractional pools where the ratio does not divide the size: TF draws the cells with
its own generator and flowjit with its own, so these check what TF's kernel guarantees for
any draw (regular cells are checked against TF in tests/oracle/cases_breadth_last.py): the
boundaries run from 0 to the size in steps of floor(alpha) or floor(alpha) + 1, each output
is its cell's max or mean (overlapping cells include their next boundary), a seed repeats
the cells, and the max's gradient reaches each cell's first maximum."""
from __future__ import annotations

import numpy as np
import pytest

import flowjit as tf

RNG = np.random.default_rng(3)
X = RNG.integers(-4, 5, (2, 7, 10, 3)).astype(np.float32)     # ties within cells
MODES = {"eager": lambda f: f, "graph": tf.function,
         "xla": lambda f: tf.function(f, jit_compile=True)}
POOLS = {"max": (tf.nn.fractional_max_pool, np.max), "avg": (tf.nn.fractional_avg_pool, np.mean)}


def _reference(x, rows, cols, overlapping, reduce):
    extra = int(overlapping)
    out = np.zeros((x.shape[0], len(rows) - 1, len(cols) - 1, x.shape[3]), x.dtype)
    for i in range(len(rows) - 1):
        for j in range(len(cols) - 1):
            cell = x[:, rows[i]:rows[i + 1] + extra, cols[j]:cols[j + 1] + extra]
            out[:, i, j] = reduce(cell, axis=(1, 2))
    return out


def _check_bounds(bounds, size, ratio):
    out = int(np.floor(size / ratio))
    steps = np.diff(bounds)
    assert bounds[0] == 0 and bounds[-1] == size and len(bounds) == out + 1
    assert set(steps) <= {size // out, size // out + 1}, bounds


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pool", POOLS)
@pytest.mark.parametrize("pseudo_random,overlapping", [(False, False), (True, True)])
def test_random_cells_pool_their_members(mode, pool, pseudo_random, overlapping):
    fn, reduce = POOLS[pool]
    run = MODES[mode](lambda x: fn(x, [1, 1.6, 1.44, 1], pseudo_random=pseudo_random,
                                   overlapping=overlapping))
    seen = set()
    for _ in range(6):
        out, rows, cols = (t.numpy() for t in run(tf.constant(X)))
        _check_bounds(rows, 7, 1.6)
        _check_bounds(cols, 10, 1.44)
        np.testing.assert_allclose(out, _reference(X, rows, cols, overlapping, reduce),
                                   rtol=1e-6)
        seen.add((tuple(rows), tuple(cols)))
    assert len(seen) > 1                   # unseeded: the cells are drawn anew


@pytest.mark.parametrize("mode", MODES)
def test_a_seed_repeats_the_cells(mode):
    runs = {}
    for seed in (5, 9):
        run = MODES[mode](lambda x: tf.nn.fractional_avg_pool(x, [1, 1.6, 1.44, 1], seed=seed))
        first = [t.numpy() for t in run(tf.constant(X))]
        again = tf.nn.fractional_avg_pool(X, [1, 1.6, 1.44, 1], seed=seed)
        for a, b in zip(first, again):
            np.testing.assert_array_equal(a, b.numpy())
        runs[seed] = first
    assert any(not np.array_equal(a, b) for a, b in zip(runs[5][1:], runs[9][1:]))


def test_max_gradient_reaches_each_cells_first_maximum():
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        out, rows, cols = tf.nn.fractional_max_pool(x, [1, 1.6, 1.44, 1], overlapping=True,
                                                    seed=4)
        total = tf.reduce_sum(out)
    got = tape.gradient(total, x).numpy()
    want = np.zeros_like(X)
    rows, cols = rows.numpy(), cols.numpy()
    for b in range(X.shape[0]):
        for c in range(X.shape[3]):
            for i in range(len(rows) - 1):
                for j in range(len(cols) - 1):
                    cell = X[b, rows[i]:rows[i + 1] + 1, cols[j]:cols[j + 1] + 1, c]
                    r, k = np.unravel_index(np.argmax(cell), cell.shape)
                    want[b, rows[i] + r, cols[j] + k, c] += 1
    np.testing.assert_array_equal(got, want)
