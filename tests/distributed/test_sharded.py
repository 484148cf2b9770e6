"""Runs sharded_cases.py on 4 and on 8 forced host CPUs, and dtensor_dataset_cases.py on 4,
each in its own pytest process: the host device count is fixed when XLA's backend starts,
and the rest of the suite keeps one device."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(__file__)


@pytest.mark.parametrize("cases,devices", [("sharded_cases.py", 4), ("sharded_cases.py", 8),
                                           ("dtensor_dataset_cases.py", 4)])
def test_dtensor_on_forced_host_devices(cases, devices):
    env = dict(os.environ, FLOWJIT_TEST_HOST_DEVICES=str(devices))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p",
                          "no:cacheprovider", os.path.join(HERE, cases)],
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
