"""Every public function of the composite APIs (`tf.sparse.*`, `tf.ragged.*`) and every public
method of `SparseTensor`, `RaggedTensor` and `IndexedSlices` is called by a case that
test_recorded.py checks against TF's recorded answer in all three modes, and the ones with a
gradient in TF are called under a GradientTape in some case, unless a table says why.

Each case runs once eagerly with the public callables wrapped: a call counts when the case
itself makes it (not a composite function calling another); graph and XLA modes trace the same
Python calls. Table entries the cases cover fail too, so the tables only shrink.
"""
from __future__ import annotations

import collections
import functools
import inspect
import os
import sys

import pytest

import flowjit as tf
from flowjit.frontend.function.context import context

sys.path.insert(0, os.path.dirname(__file__))
import cases  # noqa: E402

CLASSES = (tf.SparseTensor, tf.RaggedTensor, tf.IndexedSlices)

# Callables no recorded case calls, with the reason.
NOT_RECORDED = {
    "RaggedTensor.numpy": "eager only, NumPy arrays of rows: test_composite_api.py checks it",
    "RaggedTensor.to_list": "eager only, Python lists: test_composite_api.py checks it",
}

# Callables whose result size depends on the values: TF's XLA refuses them, as flowjit's.
NO_XLA = {q: "the number of entries depends on the values" for q in (
    "sparse.fill_empty_rows", "sparse.from_dense", "sparse.maximum", "sparse.minimum",
    "sparse.retain", "sparse.slice", "ragged.range")}

# Callables differentiable in flowjit where TF's gradient fails (README: Differences from TF).
NO_GRADIENT_CASE = {
    "sparse.reduce_max": "TF registers no gradient for SparseReduceMax (LookupError)",
    **{f"sparse.{q}": f"TF's gradient of SparseSparse{q.title()} raises (not implemented)"
       for q in ("maximum", "minimum")},
}

# TF defines no gradient through these (indices, shapes, structure only).
NOT_DIFFERENTIABLE = {
    "sparse.to_indicator",
    "RaggedTensor.row_lengths", "RaggedTensor.nrows", "RaggedTensor.bounding_shape",
    "RaggedTensor.value_rowids", "RaggedTensor.numpy",
    "RaggedTensor.to_list", "RaggedTensor.get_shape", "SparseTensor.get_shape",
    "ragged.constant", "ragged.range",
}


def _public_callables():
    """qualified name -> (owner, attribute name, static attribute)."""
    out = {}
    for ns in ("sparse", "ragged"):
        module = getattr(tf, ns)
        for name in dir(module):
            value = getattr(module, name)
            if not name.startswith("_") and inspect.isfunction(value):
                out[f"{ns}.{name}"] = (module, name, value)
    for cls in CLASSES:
        for name in dir(cls):
            value = inspect.getattr_static(cls, name)
            if name.startswith("_") or isinstance(value, property):
                continue
            if isinstance(value, (classmethod, staticmethod)) or inspect.isfunction(value):
                out[f"{cls.__name__}.{name}"] = (cls, name, value)
    return out


def _wrapped(qualname, value, calls, depth):
    inner = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value

    @functools.wraps(inner)
    def call(*args, **kwargs):
        if depth[0] == 0:
            calls[qualname].add(bool(context().tapes))
        depth[0] += 1
        try:
            return inner(*args, **kwargs)
        finally:
            depth[0] -= 1
    return type(value)(call) if isinstance(value, (classmethod, staticmethod)) else call


@pytest.fixture(scope="module")
def coverage(monkeypatch_module):
    """qualified name -> modes of the cases that call it, and names called under a tape."""
    modes, under_tape = collections.defaultdict(set), set()
    calls, depth = collections.defaultdict(set), [0]
    public = _public_callables()
    for qualname, (owner, name, value) in public.items():
        monkeypatch_module.setattr(owner, name, _wrapped(qualname, value, calls, depth))
    for case_name, fn in cases.CASES.items():
        calls.clear()
        fn(tf, lambda f: f) if case_name in cases.STAGED else fn(tf)
        case_modes = {"eager", "graph"} | (set() if case_name in cases.NO_XLA else {"xla"})
        for qualname, taped in calls.items():
            modes[qualname] |= case_modes
            if True in taped:
                under_tape.add(qualname)
    return public, modes, under_tape


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def test_every_composite_function_has_a_recorded_case(coverage):
    public, modes, _ = coverage
    missing = sorted(q for q in public if q not in modes and q not in NOT_RECORDED)
    assert not missing, f"no recorded case in tests/composite/cases.py calls {missing}"


def test_every_composite_function_is_checked_under_xla(coverage):
    _, modes, _ = coverage
    partial = sorted(q for q, m in modes.items() if "xla" not in m and q not in NO_XLA)
    assert not partial, f"called only by cases XLA cannot compile: {partial}"


def test_every_differentiable_composite_function_has_a_gradient_case(coverage):
    public, _, under_tape = coverage
    missing = sorted(q for q in public if q not in under_tape and q not in NOT_DIFFERENTIABLE
                     and q not in NOT_RECORDED and q not in NO_GRADIENT_CASE)
    assert not missing, f"no recorded case differentiates through {missing}"


def test_the_tables_name_only_uncovered_functions(coverage):
    public, modes, under_tape = coverage
    for table in (NOT_RECORDED, NO_XLA, NO_GRADIENT_CASE, NOT_DIFFERENTIABLE):
        assert set(table) <= set(public), sorted(set(table) - set(public))
    stale = sorted(q for q in NOT_RECORDED if q in modes)
    stale += sorted(q for q in NO_XLA if "xla" in modes.get(q, ()))
    stale += sorted(q for q in NO_GRADIENT_CASE if q in under_tape)
    assert not stale, f"table entries the recorded cases now cover: {stale}"
