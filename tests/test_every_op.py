"""Every registry op through every execution mode, from the samples in op_samples.py.

Eager execution (NumPy kernels, each tested against NumPy references in tests/ops) is the
reference: the graph executor (`tf.function`) and XLA (`jit_compile=True`) must agree with it,
also when traced for unknown dims (and, in graph mode, unknown rank) through an
input_signature; the traced graph must contain the op each sample targets, and every sample's
`df` module must print, parse, verify and print again to the same text.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import flowjit as tf
from flowjit.errors import UnimplementedError
from flowjit.extend import api_for_op
from flowjit.ir.graph import Graph
from flowjit.ir.printing import parse_module, print_module
from flowjit.ir.registry import OPS
from op_samples import SAMPLES

ALL = [s for op in sorted(SAMPLES) for s in SAMPLES[op]]
# Ops without a public API (declared internal): only passes create them, so their samples are
# checked in the optimized module instead of the traced graph.
INTERNAL = {op for op in SAMPLES if api_for_op(op) is None}
# `xla` is True, "unimplemented", or the error class jit_compile raises (string tensors).
XLA_REFUSED = [s for s in ALL if s.xla is not True]

# Float tolerance per dtype when a sample sets none.
RTOL = {np.dtype(np.float16): 2e-3, np.dtype(ml_dtypes.bfloat16): 2e-2,
        np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-12,
        np.dtype(np.complex64): 2e-6, np.dtype(np.complex128): 1e-12}


def _params(samples):
    return pytest.mark.parametrize("sample", samples, ids=[s.id for s in samples])


def _xla_params(samples):
    return _params([s for s in samples if s.xla is True])


def _one_per_op(samples):
    """The first sample of each op (XLA compiles are the slow part of this file)."""
    by_op: dict = {}
    for s in samples:
        by_op.setdefault(s.op, s)
    return list(by_op.values())


# --- running a sample -----------------------------------------------------------------------
_FUNCTIONS: dict = {}


def _function(sample, jit=False):
    """One tf.function per (sample, mode), so a sample is traced once per test session."""
    key = (sample.id, jit)
    f = _FUNCTIONS.get(key)
    if f is None:
        f = _FUNCTIONS[key] = tf.function(sample.fn, jit_compile=jit)
    return f


def _signature(sample, unknown):
    """An input_signature for the sample's inputs with unknown "dims" or unknown "rank"."""
    return [tf.TensorSpec(None if unknown == "rank" else [None] * a.ndim, tf.as_dtype(a.dtype))
            for a in sample.args()]


def _run(fn, sample):
    """(outputs, printed text) of `fn` on fresh tensors of the sample's inputs, its state
    reset first. A sample with `raises` must raise that error; the outputs are then None."""
    if sample.reset is not None:
        sample.reset()
    if sample.log is not None:
        sample.log.seek(0)
        sample.log.truncate()
    args = [tf.constant(a) for a in sample.args()]
    if sample.raises is not None:
        with pytest.raises(sample.raises):
            fn(*args)
        out = None
    else:
        out = fn(*args)
    return out, (sample.log.getvalue() if sample.log is not None else None)


def _leaves(x, path="out"):
    """[(path, leaf)] of a nested output, containers recorded with their type."""
    if isinstance(x, dict):
        return [(f"{path}:dict", sorted(x))] + [
            item for k in sorted(x) for item in _leaves(x[k], f"{path}[{k!r}]")]
    if isinstance(x, (list, tuple)):
        return [(f"{path}:{type(x).__name__}", len(x))] + [
            item for i, v in enumerate(x) for item in _leaves(v, f"{path}[{i}]")]
    return [(path, x)]


def _assert_same(actual, expected, sample):
    """Leaf by leaf: same structure, dtypes and shapes; equal values (floats within the
    sample's tolerance, else its dtype's). Nondeterministic samples compare shapes and
    dtypes only, and run their property check on both results."""
    got, want = _leaves(actual), _leaves(expected)
    assert [p for p, _ in got] == [p for p, _ in want], "output structures differ"
    for (path, a), (_, e) in zip(got, want):
        if not isinstance(e, tf.Tensor):
            assert not isinstance(a, tf.Tensor) and a == e, f"{path}: {a!r} != {e!r}"
            continue
        assert isinstance(a, tf.Tensor), f"{path}: expected a tensor, got {a!r}"
        assert a.dtype == e.dtype, f"{path}: dtype {a.dtype.name} != {e.dtype.name}"
        av, ev = np.asarray(a.numpy()), np.asarray(e.numpy())
        assert av.shape == ev.shape, f"{path}: shape {av.shape} != {ev.shape}"
        assert av.dtype == ev.dtype, f"{path}: NumPy dtype {av.dtype} != {ev.dtype}"
        if not sample.deterministic:
            if sample.check is not None:
                sample.check(av)
                sample.check(ev)
            continue
        rtol = RTOL.get(ev.dtype)
        if rtol is None:  # ints and bools
            np.testing.assert_array_equal(av, ev, err_msg=path)
        else:
            rtol = sample.rtol if sample.rtol is not None else rtol
            atol = sample.atol if sample.atol is not None else rtol
            wide = np.complex128 if ev.dtype.kind == "c" else np.float64
            np.testing.assert_allclose(av.astype(wide), ev.astype(wide),
                                       rtol=rtol, atol=atol, equal_nan=True, err_msg=path)


def _check_against_eager(fn, sample):
    expected, expected_log = _run(sample.fn, sample)
    actual, actual_log = _run(fn, sample)
    if sample.raises is None:
        _assert_same(actual, expected, sample)
    assert actual_log == expected_log


# --- coverage ---------------------------------------------------------------------------------
def test_every_op_has_a_sample():
    assert sorted(set(OPS) - set(SAMPLES)) == [], "ops without a sample in tests/op_samples.py"
    assert sorted(set(SAMPLES) - set(OPS)) == [], "samples filed under unknown op names"
    assert len({s.id for s in ALL}) == len(ALL)


def _ops_in(graph: Graph) -> set:
    """Op names of a graph's nodes, nested graphs (cond/case branches, loop bodies)
    included."""
    found = set()
    for node in graph.nodes:
        found.add(node.op)
        for v in node.attrs.values():
            for g in (v if isinstance(v, tuple) else (v,)):
                if isinstance(g, Graph):
                    found |= _ops_in(g)
    return found


def _concrete(sample):
    if sample.reset is not None:
        sample.reset()
    return _function(sample).get_concrete_function(*[tf.constant(a) for a in sample.args()])


@_params(ALL)
def test_sample_reaches_its_op(sample):
    cf = _concrete(sample)
    if sample.op in INTERNAL:
        assert f"df.{sample.op} " in print_module(cf.optimized_module()), \
            f"the passes did not create {sample.op} for {sample.id}"
        return
    ops = _ops_in(cf.graph)
    assert sample.op in ops, f"{sample.id} traces to {sorted(ops)}, without {sample.op}"


# --- execution modes --------------------------------------------------------------------------
@_params(ALL)
def test_graph_matches_eager(sample):
    _check_against_eager(_function(sample), sample)


@pytest.mark.parametrize("unknown", ["dims", "rank"])
@_params(ALL)
def test_graph_with_unknown_shapes_matches_eager(sample, unknown):
    if sample.static == "shape" or (sample.static == "rank" and unknown == "rank"):
        pytest.skip(f"the API needs a static {sample.static} here")
    _check_against_eager(tf.function(sample.fn, input_signature=_signature(sample, unknown)),
                         sample)


@_params(ALL)
def test_graph_with_constant_inputs_matches_eager(sample):
    """The inputs baked into the traced function as constants: constant folding gets to
    evaluate every op at compile time."""
    args = sample.args()
    folded = tf.function(lambda *_: sample.fn(*[tf.constant(a) for a in args]))
    _check_against_eager(folded, sample)


@_xla_params(ALL)
def test_xla_matches_eager(sample):
    _check_against_eager(_function(sample, jit=True), sample)


@_xla_params(_one_per_op([s for s in ALL if s.static is None and s.xla is True]))
def test_xla_with_unknown_dims_matches_eager(sample):
    """One trace with unknown dims, specialized to the call's shapes for XLA (one sample per
    op: the specialization is per op, and XLA compiles dominate this file's time)."""
    _check_against_eager(tf.function(sample.fn, input_signature=_signature(sample, "dims"),
                                     jit_compile=True), sample)


@_params(XLA_REFUSED)
def test_xla_refuses_with_the_op_name(sample):
    if sample.reset is not None:
        sample.reset()
    args = [tf.constant(a) for a in sample.args()]
    with pytest.raises(UnimplementedError if sample.xla == "unimplemented" else sample.xla) \
            as info:
        _function(sample, jit=True)(*args)
    assert sample.op in str(info.value), f"the error does not name {sample.op}: {info.value}"


# --- df text round trip -----------------------------------------------------------------------
@pytest.mark.parametrize("stage", ["dataflow", "optimized"])
@_params(ALL)
def test_df_print_parse_round_trip(sample, stage):
    """The imported module, and the module after the pass pipeline."""
    cf = _concrete(sample)
    module = cf.dataflow_module() if stage == "dataflow" else cf.optimized_module()
    module.verify()
    text = print_module(module)
    if stage == "dataflow" and sample.op not in INTERNAL:
        assert f"df.{sample.op} " in text
    parsed = parse_module(text)
    parsed.verify()
    assert print_module(parsed) == text
