"""flowjit against TF 2.21's recorded answers to the composite-tensor cases (cases.py): each
case eagerly, as a `tf.function` on the graph executor and under `jit_compile=True`."""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

import flowjit as tf

sys.path.insert(0, os.path.dirname(__file__))
import cases  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "tf_composite.json")
RECORDED = json.load(open(DATA))["cases"]


def _run(name, mode):
    fn = cases.CASES[name]
    stage = (lambda f: f) if mode == "eager" else \
        (lambda f: tf.function(f, jit_compile=mode == "xla"))
    if name in cases.STAGED:
        return fn(tf, stage)
    return fn(tf) if mode == "eager" else stage(lambda: fn(tf))()


def _same(got, want, where):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (where, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{where}[{i}]")
        return
    if isinstance(want, dict) and "dtype" in want:
        assert isinstance(got, dict) and got.get("dtype") == want["dtype"], (where, got, want)
        assert got["shape"] == want["shape"], (where, got["shape"], want["shape"])
        g, w = np.asarray(got["value"]), np.asarray(want["value"])
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6, err_msg=where)
        else:
            assert g.tolist() == w.tolist(), (where, g, w)
        return
    if isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), (where, got, want)
        for k in want:
            _same(got[k], want[k], f"{where}.{k}")
        return
    assert got == want, (where, got, want)


MODES = ["eager", "graph", "xla"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_case_matches_tf(name, mode):
    if mode == "xla" and name in cases.NO_XLA:
        pytest.skip("the result's size depends on values; XLA compiles static shapes")
    want = RECORDED[name]
    assert "result" in want, want
    _same(cases.encode(_run(name, mode)), want["result"], name)
