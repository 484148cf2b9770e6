"""tf.profiler.experimental: a profile written through jax's profiler, read back as the
Perfetto trace it writes (gzip'd Chrome trace JSON) and as the XSpace TensorBoard's profile
plugin reads (`*.xplane.pb`, through jax's own XSpace reader), with flowjit's phases and the
user's ranges in it; TF's error classes for start twice / stop without start."""
import glob
import gzip
import json

import pytest

import flowjit as tf


def _event_names(logdir):
    [path] = glob.glob(f"{logdir}/plugins/profile/*/perfetto_trace.json.gz")
    with gzip.open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    return {e.get("name") for e in events}


def test_profile_has_flowjit_phases_and_user_ranges(tmp_path):
    @tf.function(jit_compile=True)
    def f(x):
        return tf.reduce_sum(x * 2.0 + 1.0)

    @tf.function
    def g(x):
        return x - 1.0

    with tf.profiler.experimental.Profile(str(tmp_path)):
        for step in range(2):
            with tf.profiler.experimental.Trace("train", step_num=step, _r=1):
                f(tf.ones([8]))
                g(tf.ones([8]))
    names = _event_names(tmp_path)
    for phase in ("trace", "import", "passes", "lowering", "xla_compile", "plan"):
        assert f"flowjit/{phase}" in names, (phase, sorted(n for n in names if n and "flowjit" in n))
    assert "train" in names


def test_profiler_errors_are_tfs(tmp_path):
    with pytest.raises(tf.errors.UnavailableError, match="No profiler is running"):
        tf.profiler.experimental.stop()
    tf.profiler.experimental.start(str(tmp_path))
    try:
        with pytest.raises(tf.errors.AlreadyExistsError, match="Another profiler is running"):
            tf.profiler.experimental.start(str(tmp_path))
    finally:
        tf.profiler.experimental.stop()


def test_profile_xspace_reads_back_with_the_profilers_reader(tmp_path):
    from jax.profiler import ProfileData

    @tf.function(jit_compile=True)
    def f(x):
        return tf.reduce_sum(x * 2.0 + 1.0)

    with tf.profiler.experimental.Profile(str(tmp_path)):
        with tf.profiler.experimental.Trace("train", step_num=0, _r=1):
            f(tf.ones([8]))
    [path] = glob.glob(f"{tmp_path}/plugins/profile/*/*.xplane.pb")
    space = ProfileData.from_file(path)
    names = {e.name for plane in space.planes for line in plane.lines for e in line.events}
    assert {"flowjit/trace", "flowjit/passes", "flowjit/xla_compile", "train"} <= names
