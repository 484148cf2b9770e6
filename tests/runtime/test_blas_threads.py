"""The graph executor's BLAS threads (runtime/blas.py): a plan calling BLAS runs with the
policy's count (one thread, or what `tf.config.threading` set); the process's own setting
is back after every call, and plans without BLAS leave it alone."""
import os

import numpy as np
import pytest
from threadpoolctl import threadpool_info

import flowjit as tf
from flowjit.runtime import blas


def _blas_threads() -> np.int32:
    return np.int32(max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"))


def _threads_seen(with_matmul: bool):
    """A function returning the BLAS threads in use while it runs, and its product."""
    @tf.function
    def f(a):
        seen = tf.numpy_function(_blas_threads, [], tf.int32)
        return seen, (tf.matmul(a, a) if with_matmul else a + a)
    return f


@pytest.fixture
def setting():
    yield
    tf.config.threading.set_intra_op_parallelism_threads(0)


A = np.array([[1.0, 2.0], [3.0, -4.0]], np.float32)


def test_a_matmul_plan_runs_with_one_blas_thread_by_default(setting):
    before = _blas_threads()
    assert tf.config.threading.get_intra_op_parallelism_threads() == 0
    f = _threads_seen(True)
    for _ in range(3):   # the interpreted first call and the generated code alike
        seen, out = f(tf.constant(A))
        assert int(seen) == 1
        np.testing.assert_array_equal(out.numpy(), A @ A)
        assert _blas_threads() == before


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="BLAS runs one thread on one core")
def test_the_count_set_is_used_and_the_process_setting_restored(setting):
    before = _blas_threads()
    tf.config.threading.set_intra_op_parallelism_threads(2)
    assert tf.config.threading.get_intra_op_parallelism_threads() == 2
    seen, _ = _threads_seen(True)(tf.constant(A))
    assert int(seen) == 2
    assert _blas_threads() == before


def test_a_plan_without_blas_leaves_the_setting_alone(setting):
    before = _blas_threads()
    seen, out = _threads_seen(False)(tf.constant(A))
    assert int(seen) == before
    np.testing.assert_array_equal(out.numpy(), A + A)


@pytest.mark.parametrize("bad", [-1, 1.5, "2", True])
def test_a_bad_count_raises(bad):
    with pytest.raises(ValueError, match="non-negative integer"):
        tf.config.threading.set_intra_op_parallelism_threads(bad)


def test_the_environment_variable_sets_the_count(monkeypatch):
    monkeypatch.setenv(blas.ENV, "3")
    assert blas._from_environment() == 3
    monkeypatch.setenv(blas.ENV, "many")
    with pytest.raises(ValueError, match=blas.ENV):
        blas._from_environment()
