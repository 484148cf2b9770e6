"""tf.linalg's LinearOperators against TF's recorded answers
(tests/oracle/linear_operator_cases.py, tests/data/tf_linear_operators.json): dense form,
products and solves with and without adjoints, determinants, inverse and adjoint operators,
eagerly and inside tf.function (executor and XLA)."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import flowjit as tf
from oracle.linear_operator_cases import ask, build

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "data", "tf_linear_operators.json")) as f:
    RECORDED = json.load(f)["cases"]


def _answers(name, mode):
    def run():
        return ask(tf, build(tf)[name])
    if mode != "eager":
        run = tf.function(run, jit_compile=mode == "xla", autograph=False)
    return {k: v.numpy() for k, v in run().items()}


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
@pytest.mark.parametrize("name", sorted(RECORDED))
def test_operator_matches_tf(name, mode):
    want = RECORDED[name]
    assert build(tf)[name].shape.as_list() == want["shape"]
    for key, got in _answers(name, mode).items():
        np.testing.assert_allclose(got, np.array(want[key]), rtol=1e-10, atol=1e-12,
                                   err_msg=f"{name}.{key}")


def test_operator_algebra_and_properties():
    L = tf.linalg
    d = L.LinearOperatorDiag([1.0, 2.0])
    both = d @ L.LinearOperatorIdentity(2)
    assert isinstance(both, L.LinearOperatorComposition)
    np.testing.assert_allclose(both.to_dense().numpy(), np.diag([1.0, 2.0]))
    assert d.is_square and d.domain_dimension == 2 and d.batch_shape.as_list() == []
    assert L.LinearOperatorFullMatrix(np.ones((2, 3))).is_square is False
    assert d.inverse().adjoint().shape.as_list() == [2, 2]
    with pytest.raises(ValueError, match="at least 1 dimension"):
        L.LinearOperatorDiag(1.0)
    with pytest.raises(ValueError, match="non-empty list"):
        L.LinearOperatorComposition([])
