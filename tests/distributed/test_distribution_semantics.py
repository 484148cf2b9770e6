"""DTensor and MirroredStrategy behaviours against TF 2.21's recorded answers
(distribution_cases.py, recorded by tools/record_semantics.py), run in a fresh process
because the host is split into two logical CPUs before the backend starts."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(__file__)
with open(os.path.join(HERE, "..", "data", "tf_semantics.json")) as _f:
    TF = json.load(_f)["distribution"]


@pytest.fixture(scope="module")
def ours():
    env = {k: v for k, v in os.environ.items() if k != "FLOWJIT_TEST_HOST_DEVICES"}
    run = subprocess.run([sys.executable, os.path.join(HERE, "distribution_cases.py")],
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("key", sorted(TF))
def test_distribution_behaviour_is_tfs(ours, key):
    assert ours[key] == TF[key]
