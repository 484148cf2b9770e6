"""TensorArray and AutoGraph programs against TF 2.21's recorded outcomes
(tests/program_cases.py, recorded by tools/record_semantics.py into
tests/data/tf_semantics.json): the same values, or the same exception class with TF's text
(its first sentence) in the message. AUTOGRAPH_STRICT_CONVERSION=1 changes none of them in
TF 2.21, nor here."""
import json
import os

import numpy as np
import pytest

import flowjit as tf
import program_cases

with open(os.path.join(os.path.dirname(__file__), "..", "data", "tf_semantics.json")) as _f:
    TF = json.load(_f)["programs"]
CASES = {**{k: (fn, v) for k, (fn, v, _) in program_cases.tensor_array_cases(tf).items()},
         **program_cases.autograph_cases(tf)}
UNEQUAL = {"error": "UnimplementedError", "message": "All lengths have to be the same"}
# Where flowjit deliberately answers otherwise (README, "Differences from TF"): what it does.
DIFFERENT = {
    # a zero buffer on the path without the write: XLA compiles the loop TF's XLA refuses
    ("write_after_continue_fixed", "xla"): {"shape": [4], "value": [2.0, 0.0, 4.0, 6.0]},
    # an array that grows inside a loop has no static shape: refused, not silently empty
    ("write_after_continue_dynamic", "xla"): {"error": "UnimplementedError"},
    ("dynamic_size_loop", "xla"): {"error": "UnimplementedError"},
    # one buffer holds the elements, so they have one shape: TF's XLA rule in every mode
    ("split_unequal", "eager"): UNEQUAL, ("split_unequal", "graph"): UNEQUAL,
    # the lengths are checked under XLA too (TF's XLA kernel skips the check)
    ("split_wrong_sum", "xla"): {"error": "InvalidArgumentError",
                                 "message": "Expected sum of lengths to be equal"},
}
RUNS = [(name, mode) for name in sorted(TF) for mode in TF[name]]


def _first_sentence(message):
    """TF's text up to its first full stop, or up to the graph node it names."""
    return message.split(". ")[0].split(" for '{{node ")[0]


@pytest.mark.parametrize("name, mode", RUNS, ids=[f"{n}-{m}" for n, m in RUNS])
def test_program_outcome_is_tfs(name, mode):
    fn, value = CASES[name]
    want = DIFFERENT.get((name, mode), TF[name][mode])
    strict = mode.endswith("_strict")
    got = program_cases.outcome(tf, fn, value, mode.removesuffix("_strict"), strict=strict)
    if "error" in want:
        assert got.get("error") == want["error"], got
        tf_text = want.get("message", "")
        if not tf_text.startswith(("[[", "tf2xla")):   # not a node line of a graph's run
            assert _first_sentence(tf_text) in got["message"], (got, want)
        return
    assert "error" not in got, got
    assert got["shape"] == want["shape"]
    np.testing.assert_allclose(got["value"], want["value"])
