"""`tf.config`: run functions eagerly, and flowjit's environment switches."""
from __future__ import annotations

import os

RUN_EAGERLY = False
LOG_COMPILES = os.environ.get("FLOWJIT_LOG_COMPILES") == "1"


def dump_dir():
    """FLOWJIT_DUMP_TO=dir: every compiled function writes every stage there (read per
    compile, so tests and tools can switch it on at run time)."""
    return os.environ.get("FLOWJIT_DUMP_TO") or None


def run_functions_eagerly(run_eagerly: bool):
    """Make every `function` call its Python function directly (for debugging)."""
    global RUN_EAGERLY
    RUN_EAGERLY = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    return RUN_EAGERLY


def set_synchronous_execution(enable: bool):
    """Make every XLA call wait for its results (else they are computed asynchronously and
    errors and timings surface at the first read)."""
    from ...runtime import xla
    xla.set_synchronous(enable)


def get_synchronous_execution() -> bool:
    from ...runtime import xla
    return xla.SYNCHRONOUS


def set_intra_op_parallelism_threads(num_threads: int):
    """TF's intra-op parallelism: the BLAS threads of the graph executor's matmuls and other
    BLAS kernels; 0 (the default) is flowjit's policy, one thread (runtime/blas.py). Unlike
    TF, it may change at any time (TF refuses once its runtime has started)."""
    from ...runtime import blas
    blas.set_threads(num_threads)


def get_intra_op_parallelism_threads() -> int:
    from ...runtime import blas
    return blas.threads_setting()
