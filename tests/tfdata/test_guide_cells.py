"""The tf.data guides' cells (guide_cells.py) under flowjit give TF 2.21's recorded results
(tests/data/tfdata_guide.json, tools/record_tfdata_guide.py)."""
import json
import os

import pytest

import flowjit as tf

from tfdata import guide_cells

RECORDED = json.load(open(os.path.join(os.path.dirname(__file__), "..", "data",
                                       "tfdata_guide.json")))


def test_every_cell_is_recorded():
    assert sorted(RECORDED) == sorted(guide_cells.CELLS)


@pytest.mark.parametrize("name", sorted(guide_cells.CELLS))
def test_cell_matches_tf(name, tmp_path):
    assert guide_cells.run(name, tf, str(tmp_path)) == RECORDED[name]
