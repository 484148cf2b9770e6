"""Two local processes x 2 forced host CPUs joined by `dtensor.initialize_accelerator_system`
(TF's DTENSOR_* variables, PJRT's distributed runtime, gloo collectives): a data-parallel
step over the 4-device mesh gives the single-process numbers, and a client that dies makes
the other fail within a bounded time instead of hanging."""
import json
import os
import socket
import subprocess
import sys
import time

import numpy as np

WORKER = os.path.join(os.path.dirname(__file__), "two_process_worker.py")


def _free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("localhost", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def _launch(*extra, heartbeat=10):
    jobs = ",".join(f"localhost:{p}" for p in _free_ports(2))
    procs = []
    for client in range(2):
        env = dict(os.environ, DTENSOR_CLIENT_ID=str(client), DTENSOR_NUM_CLIENTS="2",
                   DTENSOR_JOBS=jobs, DTENSOR_JOB_NAME="worker",
                   FLOWJIT_HEARTBEAT_TIMEOUT=str(heartbeat))
        procs.append(subprocess.Popen([sys.executable, WORKER, *extra], env=env, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    return procs


def test_data_and_model_parallel_steps_across_two_processes():
    results = []
    for p in _launch():
        out, err = p.communicate(timeout=240)
        assert p.returncode == 0, err[-3000:]
        results.append(json.loads(out.strip().splitlines()[-1]))
    rng = np.random.default_rng(0)
    x, y, w0 = (rng.standard_normal(s).astype(np.float32) for s in ((8, 3), (8, 2), (3, 2)))
    w4_0, y4 = (rng.standard_normal(s).astype(np.float32) for s in ((3, 4), (8, 4)))

    def sgd_step(w, target):   # the full-batch step on one device
        err = x @ w - target
        return w - 0.1 * 2 * x.T @ err / err.size
    assert sorted(r["client"] for r in results) == [0, 1]
    for r in results:
        assert (r["clients"], r["devices"], r["local"]) == (2, 4, 2)
        np.testing.assert_allclose(r["w"], sgd_step(w0, y), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(r["w_model_parallel"], sgd_step(w4_0, y4), rtol=1e-5,
                                   atol=1e-6)
        assert r["w_layout"] == "['unsharded', 'x']"   # the weight stayed split


def test_a_dead_client_fails_the_other_in_bounded_time():
    survivor, dying = _launch("die", heartbeat=5)
    start = time.monotonic()
    dying.communicate(timeout=240)
    _, err = survivor.communicate(timeout=240)
    assert dying.returncode == 3
    assert survivor.returncode != 0
    assert "stopped sending heartbeats" in err
    assert time.monotonic() - start < 120
