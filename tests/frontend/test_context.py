"""The frontend's state is per thread (frontend/function/context.py): while one thread traces a
tf.function, another thread's ops run eagerly, its tapes and name scopes are its own, and
concurrent mixed work gives correct results with one trace per signature.

FLOWJIT_THREAD_STRESS=8x200 runs the stress test at full size (CI runs 4x25)."""
from __future__ import annotations

import os
import threading

import numpy as np
import pytest

import flowjit as tf
from flowjit.frontend.eager.tensor import Tensor

THREADS, OPS = map(int, os.environ.get("FLOWJIT_THREAD_STRESS", "4x25").split("x"))


def run_in_thread(fn):
    out, failed = [], []

    def work():
        try:
            out.append(fn())
        except BaseException as e:  # noqa: BLE001 - re-raised below
            failed.append(e)
    t = threading.Thread(target=work)
    t.start()
    return t, out, failed


def test_eager_op_on_another_thread_while_one_traces():
    inside, release = threading.Event(), threading.Event()

    @tf.function
    def slow(x):
        inside.set()
        assert release.wait(60)
        return x + 1.

    t, out, failed = run_in_thread(lambda: slow(tf.constant(1.)))
    try:
        assert inside.wait(60)
        y = tf.constant(2.) * 3.            # while `slow` is being traced on the other thread
        assert type(y) is Tensor
        assert y.numpy() == 6.
        v = tf.Variable(1.)
        v.assign_add(2.)                    # eager update, not a graph node
        assert v.numpy() == 3.
    finally:
        release.set()
        t.join()
    assert not failed, failed
    assert out[0].numpy() == 2.


def test_a_tape_records_only_its_own_threads_ops():
    x = tf.Variable(3.)
    started, done = threading.Event(), threading.Event()

    def other():
        started.wait(60)
        r = x * x * 100.                    # not seen by the main thread's tape
        done.set()
        return r

    t, out, failed = run_in_thread(other)
    with tf.GradientTape(persistent=True) as tape:
        y = x * 2.
        started.set()
        assert done.wait(60)
    t.join()
    assert not failed, failed
    assert out[0].numpy() == 900.
    assert tape.gradient(y, x).numpy() == 2.
    assert tape.gradient(out[0], x) is None


def test_name_scopes_are_per_thread():
    entered, release = threading.Event(), threading.Event()

    def other():
        with tf.name_scope("other"):
            entered.set()
            release.wait(60)
            return tf.Variable(0., name="v").name

    t, out, failed = run_in_thread(other)
    assert entered.wait(60)
    name = tf.Variable(0., name="mine").name
    release.set()
    t.join()
    assert not failed, failed
    assert name == "mine:0"
    assert out[0] == "other/v:0"


@pytest.mark.parametrize("jit", [False, True])
def test_mixed_work_on_many_threads(jit):
    @tf.function(jit_compile=jit)
    def affine(x):
        return x * 2. + 1.

    shapes = [(), (3,), (2, 2)]
    errors, start = [], threading.Barrier(THREADS)

    def work(i):
        rng = np.random.default_rng(i)
        start.wait()
        try:
            for k in range(OPS):
                shape = shapes[(i + k) % len(shapes)]
                a = rng.standard_normal(shape).astype(np.float32)
                kind = k % 4
                if kind == 0:      # eager
                    got, want = (tf.constant(a) * 3.).numpy(), a * 3.
                elif kind == 1:    # a cached call (traces on the first of its signature)
                    got, want = affine(tf.constant(a)).numpy(), a * 2. + 1.
                elif kind == 2:    # an explicit trace, then a call of it
                    cf = affine.get_concrete_function(tf.TensorSpec(shape, tf.float32))
                    got, want = cf(tf.constant(a)).numpy(), a * 2. + 1.
                else:              # a gradient through a call
                    x = tf.constant(a)
                    with tf.GradientTape() as tape:
                        tape.watch(x)
                        y = tf.reduce_sum(affine(x) * x)
                    got, want = tape.gradient(y, x).numpy(), 4. * a + 1.
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    assert affine.experimental_get_tracing_count() == len(shapes)
