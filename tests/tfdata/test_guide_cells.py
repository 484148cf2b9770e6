"""The tf.data guides' cells (guide_cells.py) under flowjit give TF 2.21's recorded results
(tests/data/tfdata_guide.json, tools/record_tfdata_guide.py)."""
import json
import math
import os

import pytest

import flowjit as tf

from tfdata import guide_cells

RECORDED = json.load(open(os.path.join(os.path.dirname(__file__), "..", "data",
                                       "tfdata_guide.json")))


def _close(got, want, tol):
    """`got` == `want`, floats within `tol` (relative, or absolute near zero)."""
    if isinstance(want, float) and isinstance(got, (int, float)):
        return math.isclose(got, want, rel_tol=tol, abs_tol=tol)
    if isinstance(want, dict):
        return isinstance(got, dict) and sorted(got) == sorted(want) and all(
            _close(got[k], want[k], tol) for k in want)
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(
            _close(g, w, tol) for g, w in zip(got, want))
    return got == want


def test_every_cell_is_recorded():
    assert sorted(RECORDED) == sorted(guide_cells.CELLS)


@pytest.mark.parametrize("name", sorted(guide_cells.CELLS))
def test_cell_matches_tf(name, tmp_path):
    got = guide_cells.run(name, tf, str(tmp_path))
    tol = guide_cells.TOLERANCES.get(name)
    if tol is None:
        assert got == RECORDED[name]
    else:
        assert _close(got, RECORDED[name], tol), (got, RECORDED[name])


def test_tolerant_comparison_sees_a_wrong_answer():
    want = {"loss": [1.25, 0.5], "shape": [320, 10]}
    assert _close({"loss": [1.25001, 0.5], "shape": [320, 10]}, want, 1e-4)
    assert not _close({"loss": [1.26, 0.5], "shape": [320, 10]}, want, 1e-4)
    assert not _close({"loss": [1.25, 0.5], "shape": [200, 10]}, want, 1e-4)
    assert not _close({"loss": [1.25]}, want, 1e-4)


def test_the_audit_lists_every_guide_cell():
    from tfdata import guide_audit
    rows = guide_audit.DATA + guide_audit.PERFORMANCE
    assert len({cell_id for cell_id, _, _ in rows}) == len(rows)
    named = set(guide_audit.EXTRA)
    for cell_id, _, status in rows:
        if status.startswith("cell:"):
            assert status[5:] in guide_cells.CELLS, cell_id
            named.add(status[5:])
        else:
            assert status in guide_audit.STATUSES, cell_id
    assert named == set(guide_cells.CELLS)
