"""flowjit-opt never answers with a traceback or a Python repr: SSA dominance is verified on
parse, and a sample of mutated FileCheck inputs (the long run: `python -m
flowjit.testing.opt_mutants --mutants 1000`) gets a located diagnostic or re-parsable output."""
from __future__ import annotations

import pytest

from flowjit.testing import opt_mutants

USE_BEFORE_DEF = """\
func.func @f(%0: tensor<3xf32>) -> tensor<3xf32> {
  %1 = df.neg %2 : (tensor<3xf32>) -> tensor<3xf32>
  %2 = df.neg %0 : (tensor<3xf32>) -> tensor<3xf32>
  func.return %1 : tensor<3xf32>
}
"""


@pytest.mark.parametrize("argv", [[], ["-p", "cse,dce"], ["--lower-to", "stablehlo"]])
def test_use_before_definition_is_a_located_error(tmp_path, argv):
    path = tmp_path / "dom.mlir"
    path.write_text(USE_BEFORE_DEF)
    rc, out, err = opt_mutants._run([str(path), *argv])
    assert rc == 1 and out == ""
    # mlir-opt: "operand #0 does not dominate this use", at the using op
    assert f"{path}:2:3: error: 'df.neg' op operand #0 does not dominate this use" in err
    assert "OpResult" not in err


def test_mutated_filecheck_inputs_sample():
    result = opt_mutants.run(mutants=30, seed=13)
    assert result["counts"]["mutants"] == 30
    assert not result["failures"], result["failures"][0]
