"""Thread safety of the call path: N threads x M calls of a step that updates a variable lose
no update, never see a donated buffer, and concurrent first calls trace and compile once."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import flowjit as tf

THREADS, CALLS = 4, 25


def hammer(fn):
    """Run fn() CALLS times in each of THREADS threads, all released together."""
    errors, start = [], threading.Barrier(THREADS)

    def work():
        start.wait()
        try:
            for _ in range(CALLS):
                fn()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


@pytest.mark.parametrize("jit", [False, True])
def test_concurrent_steps_keep_every_update_and_compile_once(jit):
    v = tf.Variable(1.0)
    w = tf.Variable(np.zeros(3, np.float32))

    @tf.function(jit_compile=jit)
    def step():
        v.assign_add(1.0)
        w.assign_sub(tf.ones([3]))
        return v.read_value()
    hammer(step)                   # the first calls race: one trace, one compile
    assert float(v.numpy()) == 1.0 + THREADS * CALLS
    np.testing.assert_array_equal(w.numpy(), np.full(3, -THREADS * CALLS, np.float32))
    assert step.experimental_get_tracing_count() == 1
    assert step.compile_count() == 1


def test_eager_reads_and_updates_race_with_xla_steps():
    v = tf.Variable(np.zeros(4, np.float32))
    step = tf.function(lambda: v.assign_add(tf.ones([4])), jit_compile=True)
    reads = []

    def mixed():
        step()
        v.assign_add(np.ones(4, np.float32))
        reads.append(v.numpy())      # never a deleted or donated buffer
    hammer(mixed)
    np.testing.assert_array_equal(v.numpy(), np.full(4, 2 * THREADS * CALLS, np.float32))
    assert all(r.shape == (4,) for r in reads)
