"""flowjit against TF 2.21's recorded answers to the tf.nn composite cases (nn_cases.py):
each case eagerly, as a `tf.function` on the graph executor and under `jit_compile=True`."""
from __future__ import annotations

import json
import os
import sys

import pytest

import flowjit as tf

sys.path.insert(0, os.path.dirname(__file__))
import cases  # noqa: E402
import nn_cases  # noqa: E402
from test_recorded import _same  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "tf_nn_composite.json")
RECORDED = json.load(open(DATA))["cases"]


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
@pytest.mark.parametrize("name", sorted(nn_cases.CASES))
def test_case_matches_tf(name, mode):
    if mode == "xla" and name in nn_cases.NO_XLA:
        pytest.skip("the result's size depends on values; XLA compiles static shapes")
    if mode != "eager" and name in nn_cases.EAGER_ONLY:
        pytest.skip("returns Python values")
    fn = nn_cases.CASES[name]
    got = fn(tf) if mode == "eager" else \
        tf.function(lambda: fn(tf), jit_compile=mode == "xla")()
    want = RECORDED[name]
    assert "result" in want, want
    _same(cases.encode(got), want["result"], name)
