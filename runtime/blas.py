"""The graph executor's BLAS threading: how many threads NumPy's BLAS may use while a plan
runs (TF's intra-op parallelism, `tf.config.threading.set_intra_op_parallelism_threads`).

A plan issues its kernels one at a time from Python; between two matmuls a multithreaded
BLAS (OpenBLAS) keeps its worker threads spinning, and on a machine with few or busy cores
they take the CPU from the thread that issues the next kernel (the MLP step measured 2.05x
jax.jit with OpenBLAS's default threads, 1.88x with one). So by default a plan that calls BLAS
runs it single-threaded; the user's own NumPy calls keep the process's setting, which is put
back after each run.

Set the count with `tf.config.threading.set_intra_op_parallelism_threads(n)` or the
environment variable FLOWJIT_NUM_INTRAOP_THREADS (TF's TF_NUM_INTRAOP_THREADS): 0 (the
default) is the policy above, n > 0 uses n BLAS threads in plans. Plans without a BLAS kernel
(BLAS_OPS) pay nothing.
"""
from __future__ import annotations

import os

ENV = "FLOWJIT_NUM_INTRAOP_THREADS"
POLICY_THREADS = 1       # the BLAS threads of a plan while no count is set
# Ops whose NumPy kernels call BLAS or LAPACK
BLAS_OPS = frozenset((
    "matmul", "fused_matmul", "tensordot", "einsum", "matrix_inverse", "matrix_determinant",
    "log_matrix_determinant", "matrix_solve", "matrix_triangular_solve", "cholesky",
    "conv2d", "fused_conv2d", "depthwise_conv2d", "conv2d_transpose"))


def _from_environment() -> int:
    text = os.environ.get(ENV, "").strip()
    try:
        n = int(text or 0)
    except ValueError:
        raise ValueError(f"{ENV} must be a non-negative integer, got {text!r}") from None
    if n < 0:
        raise ValueError(f"{ENV} must be a non-negative integer, got {n}")
    return n


_requested = _from_environment()
_libraries = None     # threadpoolctl's controllers of the BLAS libraries loaded (found once)


def set_threads(n: int):
    """The BLAS threads of the executor's plans; 0: the default policy."""
    global _requested
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"The number of intra-op threads must be a non-negative integer, "
                         f"got {n!r}")
    _requested = n


def threads_setting() -> int:
    """What `set_threads` (or the environment) asked for; 0: the default policy."""
    return _requested


def plan_threads() -> int:
    """The BLAS threads a plan runs with."""
    return _requested or POLICY_THREADS


def _blas_libraries() -> list:
    global _libraries
    if _libraries is None:
        from threadpoolctl import ThreadpoolController
        _libraries = ThreadpoolController().select(user_api="blas").lib_controllers
    return _libraries


def run_limited(run, args):
    """`run(args)` with the plans' BLAS thread count, the previous counts restored after."""
    n = plan_threads()
    changed = []
    for lib in _blas_libraries():
        before = lib.get_num_threads()
        if before != n:
            lib.set_num_threads(n)
            changed.append((lib, before))
    try:
        return run(args)
    finally:
        for lib, before in changed:
            lib.set_num_threads(before)
