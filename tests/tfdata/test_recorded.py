"""tf.data against TF 2.21's recorded behaviour (tools/record_tfdata.py): every dataset's
elements, element_spec and cardinality, and the error classes and messages of bad input."""
import json
import os

import numpy as np
import pytest

import flowjit as tf

RECORDED = json.load(open(os.path.join(os.path.dirname(__file__), "..", "data",
                                       "tfdata.json")))


def as_json(x):
    """The recorder's encoding of an element (tools/record_tfdata.py)."""
    if isinstance(x, dict):
        return {k: as_json(v) for k, v in sorted(x.items())}
    if isinstance(x, (tuple, list)):
        return [as_json(v) for v in x]
    a = np.asarray(x, object) if isinstance(x, bytes) else np.asarray(x)
    if a.dtype.kind in "OS":
        return {"bytes": [b.decode() for b in a.reshape(-1)], "shape": list(a.shape)}
    return {"dtype": a.dtype.name, "shape": list(a.shape), "value": a.reshape(-1).tolist()}


@pytest.mark.parametrize("name", sorted(RECORDED["datasets"]))
def test_dataset_matches_tf(name):
    case = RECORDED["datasets"][name]
    ds = eval(case["expr"])
    assert repr(ds.element_spec) == case["spec"]
    assert int(ds.cardinality()) == case["cardinality"]
    assert as_json(list(ds.as_numpy_iterator())) == case["elements"]
    # a second iterator starts again from the first element
    assert as_json(list(ds.as_numpy_iterator())) == case["elements"]


@pytest.mark.parametrize("name", sorted(RECORDED["cardinality"]))
def test_cardinality_matches_tf(name):
    case = RECORDED["cardinality"][name]
    assert int(eval(case["expr"]).cardinality()) == case["cardinality"]


@pytest.mark.parametrize("name", sorted(RECORDED["errors"]))
def test_error_matches_tf(name):
    case = RECORDED["errors"][name]
    cls = StopIteration if case["class"] == "StopIteration" else \
        getattr(tf.errors, case["class"], None) or getattr(__builtins__, case["class"], None) \
        or {"TypeError": TypeError, "ValueError": ValueError}[case["class"]]
    with pytest.raises(cls) as info:
        eval(case["expr"])
    assert type(info.value).__name__ == case["class"]
    message = getattr(info.value, "message", None) or str(info.value)
    assert message.startswith(case["message"]), (message, case["message"])
