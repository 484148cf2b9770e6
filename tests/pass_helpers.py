"""Helpers for the pass tests (tests/passes/): run a function with and without a pass
spec in the graph executor and under XLA, compare, count ops, check idempotence."""
from __future__ import annotations

import collections

import numpy as np

import flowjit as tf
from flowjit.ir.printing import print_module
from flowjit.passes.pipeline import run_pipeline


def op_counts(module) -> collections.Counter:
    return collections.Counter(op.name for op in module.walk())


def run(fn, args, passes, jit=False):
    """The outputs of `tf.function(fn, passes=passes)` as a list of arrays."""
    out = tf.function(fn, passes=passes, jit_compile=jit)(*[tf.constant(a) for a in args])
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o.numpy() for o in outs]


def check(fn, args, passes, exact=True, rtol=0.0, reset=None, base="", xla=True):
    """Compare `passes` against `base` (default: no passes) in the executor and, if `xla`,
    under XLA: bit for bit (NaN positions too) unless `exact` is False. `reset` restores
    state before each run. Returns the op counts of the optimized module and of the module
    XLA compiled (None without XLA)."""
    def go(p, jit):
        if reset is not None:
            reset()
        return run(fn, args, p, jit)
    for jit in (False, True) if xla else (False,):
        ref, opt = go(base, jit), go(passes, jit)
        assert len(ref) == len(opt)
        for b, o in zip(ref, opt):
            assert b.dtype == o.dtype and b.shape == o.shape
            if exact:
                np.testing.assert_array_equal(o, b)
            else:
                np.testing.assert_allclose(o, b, rtol=rtol, atol=rtol)
    if reset is not None:
        reset()
    tensors = [tf.constant(a) for a in args]
    f = tf.function(fn, passes=passes)
    counts = op_counts(f.get_concrete_function(*tensors).optimized_module())
    xla_counts = None
    if xla:
        xla_counts = op_counts(tf.function(fn, passes=passes).experimental_get_compiler_ir(
            *tensors).xla().df_module)
    return counts, xla_counts


def optimized(fn, args, passes):
    """The module after `passes` (printed)."""
    f = tf.function(fn, passes=passes)
    return print_module(f.get_concrete_function(*[tf.constant(a) for a in args])
                        .optimized_module())


def assert_idempotent(fn, args, passes):
    """Running `passes` twice gives the same module as running them once."""
    cf = tf.function(fn, passes="").get_concrete_function(*[tf.constant(a) for a in args])
    m = cf.dataflow_module().clone()
    run_pipeline(m, passes)
    once = print_module(m)
    run_pipeline(m, passes)
    assert print_module(m) == once
