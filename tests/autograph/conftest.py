"""Shared fixtures for the AutoGraph tests: run a function eagerly (run_functions_eagerly:
plain Python on eager tensors), traced on the graph executor, or traced and compiled by XLA."""
import pytest

import flowjit as tf

MODES = ("eager", "graph", "xla")


def run(fn, mode, *args, **function_kwargs):
    """Call `fn` through tf.function in `mode`; returns its result."""
    if mode == "eager":
        tf.config.run_functions_eagerly(True)
        try:
            return tf.function(fn, **function_kwargs)(*args)
        finally:
            tf.config.run_functions_eagerly(False)
    return tf.function(fn, jit_compile=(mode == "xla"), **function_kwargs)(*args)


def graph_ops(fn, *args):
    """The op names of the traced graph of `fn` (nested graphs included)."""
    cf = tf.function(fn).get_concrete_function(*args)
    ops = []

    def walk(g):
        for n in g.nodes:
            ops.append(n.op)
            for v in n.attrs.values():
                for sub in (v if isinstance(v, tuple) else (v,)):
                    if hasattr(sub, "nodes"):
                        walk(sub)
    walk(cf.graph)
    return ops


@pytest.fixture(params=MODES)
def mode(request):
    return request.param


@pytest.fixture
def call(mode):
    """`call(fn, *args, **function_kwargs)` runs `fn` in this test's mode."""
    return lambda fn, *args, **kw: run(fn, mode, *args, **kw)


@pytest.fixture
def ops_of():
    return graph_ops


@pytest.fixture(params=("python", "tensor"))
def cond_kind(request):
    """Whether a test's conditions are Python values or tensors."""
    return request.param
