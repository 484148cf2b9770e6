"""tf.summary against TF 2.21's recorded events (tools/record_tf_summary.py), both read back
with TensorBoard's own event reader."""
import json
import os
import struct
import sys
import zlib

import numpy as np
import pytest

import flowjit as tf

pytest.importorskip("tensorboard")
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HERE, "oracle"))
from summary_program import program, read_events  # noqa: E402

RECORD = json.load(open(os.path.join(HERE, "data", "tf_summary.json")))


def _decode_png(data: bytes) -> list:
    """Pixels of a PNG written with unfiltered rows (what flowjit writes)."""
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        (length,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, _, color, *_ = struct.unpack(">IIBBBBB", body)
            channels = {0: 1, 2: 3, 6: 4}[color]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels + 1
    assert all(raw[r * stride] == 0 for r in range(height))
    return [b for r in range(height) for b in raw[r * stride + 1:(r + 1) * stride]]


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("summaries"))
    results, errors = program(tf, d)
    events = read_events(d)
    for ev in events.get("img", []):
        ev[3] = ev[3][:2] + [_decode_png(v.encode("latin-1")) for v in ev[3][2:]]
    return results, errors, events


def test_results_and_errors_match_tf(written):
    results, errors, _ = written
    assert results == RECORD["results"]
    assert errors == RECORD["errors"]


def test_every_tag_matches_tf(written):
    events = written[2]
    assert sorted(events) == sorted(RECORD["events"])
    for tag, want in RECORD["events"].items():
        got = events[tag]
        assert [(e[0], e[1], e[2], e[4]) for e in got] == [(e[0], e[1], e[2], e[4])
                                                            for e in want], tag
        for g, w in zip(got, want):
            if w[1].startswith("float"):
                np.testing.assert_allclose(g[3], w[3], rtol=1e-6, atol=1e-6, err_msg=tag)
            else:
                assert g[3] == w[3], tag


def test_staged_summaries_are_refused_under_xla(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))

    @tf.function(jit_compile=True)
    def f(x):
        with w.as_default(step=1):
            tf.summary.scalar("x", x)
        return x
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant(1.0))


def test_trace_export_writes_the_traced_graph(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    w = tf.summary.create_file_writer(str(tmp_path))

    @tf.function
    def model(x):
        return tf.matmul(x, x) + 1.0
    tf.summary.trace_on(graph=True)
    model(tf.ones([2, 2]))
    with w.as_default():
        tf.summary.trace_export("model_trace", step=0)
    w.flush()
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    ops = {n.op for n in acc.Graph().node}
    assert {"matmul", "add"} <= ops
    assert all(n.name.startswith("model/") for n in acc.Graph().node)
