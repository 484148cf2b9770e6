"""DTensor on N forced host CPUs (N from FLOWJIT_TEST_HOST_DEVICES). Run by
test_sharded.py in a subprocess, so the rest of the suite keeps one device; the expected
values are NumPy's (the unsharded computation) and TF 2.21's recorded behaviour."""
import os
import traceback

import numpy as np
import pytest

import flowjit as tf
from flowjit.experimental import dtensor

N = int(os.environ.get("FLOWJIT_TEST_HOST_DEVICES", "4"))
_CPU = tf.config.list_physical_devices("CPU")
tf.config.set_logical_device_configuration(_CPU[0], [tf.config.LogicalDeviceConfiguration()] * N)

MESH = dtensor.create_mesh([("x", N)], device_type="CPU")
MESH2 = dtensor.create_mesh([("b", 2), ("m", N // 2)], device_type="CPU")
RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def test_devices_split_and_named():
    logical = tf.config.list_logical_devices("CPU")
    assert [d.name for d in logical] == [f"/device:CPU:{k}" for k in range(N)]
    # TF 2.21: one physical CPU, however many logical devices
    assert tf.config.list_physical_devices("CPU") == _CPU
    with pytest.raises(RuntimeError, match="^Virtual devices cannot be modified after being "
                                           "initialized$"):
        tf.config.set_logical_device_configuration(
            _CPU[0], [tf.config.LogicalDeviceConfiguration()] * 2)
    assert MESH.local_devices()[1] == "/job:localhost/replica:0/task:0/device:CPU:1"
    assert repr(MESH).startswith(f"Mesh.from_string(|x={N}|0,1,")
    assert dtensor.num_clients() == 1 and dtensor.client_id() == 0


def test_layout_kinds_and_errors():
    b = dtensor.Layout.batch_sharded(MESH, "x", rank=2)
    assert b.sharding_specs == ["x", dtensor.UNSHARDED] and b.mesh == MESH
    assert dtensor.Layout.inner_sharded(MESH, "x", rank=2).sharding_specs == ["unsharded", "x"]
    assert dtensor.Layout.replicated(MESH, 2).is_fully_replicated()
    # TF 2.21: ValueError('y: A dimension sharding must either be a valid mesh dimension or
    # UNSHARDED.')
    with pytest.raises(ValueError, match="^y: A dimension sharding must either be a valid mesh "
                                         "dimension or UNSHARDED.$"):
        dtensor.Layout(["y", "unsharded"], MESH)


def test_reprs_and_helpers_read_as_tf():
    devs = ",".join(f"/job:localhost/replica:0/task:0/device:CPU:{k}" for k in range(N))
    ids = ",".join(str(k) for k in range(N))
    # TF 2.21: Layout.from_string(sharding_specs:x,unsharded, mesh:|x=4|0,1,2,3|0,1,2,3|...)
    assert repr(dtensor.Layout.batch_sharded(MESH, "x", rank=2)) == \
        f"Layout.from_string(sharding_specs:x,unsharded, mesh:|x={N}|{ids}|{ids}|{devs})"
    rep = dtensor.Layout.replicated(MESH, 1)
    d = dtensor.call_with_layout(tf.range, rep, 4.0)
    assert dtensor.fetch_layout(d) == rep
    np.testing.assert_array_equal(d.numpy(), np.arange(4.0))   # replicated: readable
    dtensor.check_layout(d, rep)
    with pytest.raises(ValueError, match="did not match expected layout"):
        dtensor.check_layout(d, dtensor.Layout.batch_sharded(MESH, "x", 1))
    assert dtensor.fetch_layout(dtensor.copy_to_mesh(tf.ones([2]), rep)) == rep


@pytest.mark.parametrize("specs", [["x", "unsharded"], ["unsharded", "x"],
                                   ["unsharded", "unsharded"]])
def test_pack_unpack_relayout_round_trip(specs):
    layout = dtensor.Layout(specs, MESH)
    x = np.arange(N * 2 * N, dtype=np.float32).reshape(N * 2, N)
    d = dtensor.relayout(tf.constant(x), layout)
    assert dtensor.fetch_layout(d) == layout
    parts = [p.numpy() for p in dtensor.unpack(d)]
    axis = specs.index("x") if "x" in specs else None
    expect = np.split(x, N, axis=axis) if axis is not None else [x] * N
    for got, want in zip(parts, expect):
        np.testing.assert_array_equal(got, want)
    again = dtensor.pack(parts, layout)
    np.testing.assert_array_equal(
        dtensor.relayout(again, dtensor.Layout.replicated(MESH, 2)).numpy(), x)


def test_pack_and_relayout_errors():
    layout = dtensor.Layout.batch_sharded(MESH, "x", rank=2)
    # TF 2.21: InvalidArgumentError('... expected 4 inputs to DTensorPack, but got 3')
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=f"expected {N} inputs to DTensorPack, but got 3"):
        dtensor.pack([tf.ones([1, 2])] * 3, layout)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"relayout: dimension 0 of shape "
                       r"\[3, 2\] is not divisible ") as info:
        dtensor.relayout(tf.ones([3, 2]), layout)
    assert "sharded_cases.py" in "".join(traceback.format_exception(info.value))
    d = dtensor.relayout(tf.ones([N, 2]), layout)
    # TF 2.21: UnimplementedError('Trying to copy a non-single-device and non-replicated
    # DTensor is not supported. ...')
    with pytest.raises(tf.errors.UnimplementedError, match="^Trying to copy a non-single-device "
                       "and non-replicated DTensor is not supported"):
        d.numpy()


def test_eager_ops_on_dtensors_equal_unsharded():
    x, w = rand(2 * N, 6), rand(6, N)
    dx = dtensor.relayout(tf.constant(x), dtensor.Layout.batch_sharded(MESH, "x", 2))
    dw = dtensor.relayout(tf.constant(w), dtensor.Layout.inner_sharded(MESH, "x", 2))
    rep = dtensor.Layout.replicated(MESH, 2)
    mm = tf.matmul(dx, dw)
    assert isinstance(dtensor.fetch_layout(mm), dtensor.Layout)
    np.testing.assert_allclose(dtensor.relayout(mm, rep).numpy(), x @ w, rtol=1e-5, atol=1e-5)
    s = tf.reduce_sum(dx, axis=0)
    np.testing.assert_allclose(dtensor.relayout(s, dtensor.Layout.replicated(MESH, 1)).numpy(),
                               x.sum(0), rtol=1e-5, atol=1e-5)
    sm = tf.nn.softmax(dx)
    e = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(dtensor.relayout(sm, rep).numpy(), e / e.sum(-1, keepdims=True),
                               rtol=1e-5, atol=1e-6)
    # a plain tensor beside a DTensor counts as replicated
    np.testing.assert_allclose(dtensor.relayout(dx + tf.ones([2 * N, 6]), rep).numpy(), x + 1,
                               rtol=1e-6)


def test_sharded_conv2d_equals_unsharded():
    img, k = rand(N, 5, 5, 2), rand(3, 3, 2, 3)
    d = dtensor.relayout(tf.constant(img), dtensor.Layout.batch_sharded(MESH, "x", 4))
    got = dtensor.relayout(tf.nn.conv2d(d, k, strides=1, padding="VALID"),
                           dtensor.Layout.replicated(MESH, 4)).numpy()
    want = np.zeros((N, 3, 3, 3), np.float32)
    for i in range(3):
        for j in range(3):
            want[:, i, j, :] = np.einsum("nhwc,hwco->no", img[:, i:i + 3, j:j + 3, :], k)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@tf.function(jit_compile=True)
def _mlp(x, w):
    return tf.nn.relu(tf.matmul(x, w))


def test_jit_function_on_2d_mesh_and_compiler_ir():
    x, w = rand(4, 6), rand(6, N)
    dx = dtensor.relayout(tf.constant(x), dtensor.Layout(["b", "unsharded"], MESH2))
    dw = dtensor.relayout(tf.constant(w), dtensor.Layout(["unsharded", "m"], MESH2))
    out = _mlp(dx, dw)
    assert dtensor.fetch_layout(out).mesh == MESH2
    np.testing.assert_allclose(dtensor.relayout(out, dtensor.Layout.replicated(MESH2, 2))
                               .numpy(), np.maximum(x @ w, 0), rtol=1e-5, atol=1e-5)
    ir = _mlp.experimental_get_compiler_ir(dx, dw)
    text = ir(stage="stablehlo")
    assert f'sdy.mesh @mesh = <["b"=2, "m"={N // 2}]>' in text
    assert '#sdy.sharding<@mesh, [{"b"}, {}]>' in text
    assert f"num_partitions={N}" in ir(stage="optimized_hlo")
    # a new layout is a new trace (layouts are part of the trace type)
    _mlp(dtensor.relayout(tf.constant(x), dtensor.Layout.replicated(MESH2, 2)), dw)
    assert _mlp.experimental_get_tracing_count() == 2


def test_plain_function_over_dtensors_equals_single_device():
    """As TF's DTensor, a tf.function without jit_compile runs over the mesh."""
    @tf.function
    def f(a, b):
        return tf.nn.relu(tf.matmul(a, b)) + 1.
    x, w = rand(2 * N, 3), rand(3, N)
    want = f(tf.constant(x), tf.constant(w)).numpy()      # one device, graph executor
    np.testing.assert_allclose(want, np.maximum(x @ w, 0) + 1., rtol=1e-5, atol=1e-5)
    dx = dtensor.relayout(tf.constant(x), dtensor.Layout.batch_sharded(MESH, "x", 2))
    dw = dtensor.relayout(tf.constant(w), dtensor.Layout.replicated(MESH, 2))
    out = f(dx, dw)
    assert dtensor.fetch_layout(out).mesh == MESH
    got = dtensor.relayout(out, dtensor.Layout.replicated(MESH, 2)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def _reference_step(x, y, w, lr):
    """One SGD step of mean((x @ w - y)**2) in NumPy."""
    err = x @ w - y
    grad = 2 * x.T @ err / err.size
    return w - lr * grad


@pytest.mark.parametrize("model_parallel", [False, True], ids=["data", "model"])
def test_training_step_equals_single_device(model_parallel):
    x, y, w0 = rand(2 * N, 3), rand(2 * N, N), rand(3, N)
    w_layout = dtensor.Layout.inner_sharded(MESH, "x", 2) if model_parallel else \
        dtensor.Layout.replicated(MESH, 2)
    x_layout = dtensor.Layout.replicated(MESH, 2) if model_parallel else \
        dtensor.Layout.batch_sharded(MESH, "x", 2)
    w = dtensor.DVariable(dtensor.relayout(tf.constant(w0), w_layout))
    opt = tf.keras.optimizers.SGD(0.1)

    @tf.function(jit_compile=True)
    def step(a, b):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(a, w) - b))
        opt.apply_gradients([(tape.gradient(loss, w), w)])
        return loss

    dx, dy = dtensor.relayout(tf.constant(x), x_layout), dtensor.relayout(tf.constant(y), x_layout)
    step(dx, dy)
    want = _reference_step(x, y, w0, 0.1)
    assert dtensor.fetch_layout(w) == w_layout
    np.testing.assert_allclose(dtensor.relayout(w.read_value(), dtensor.Layout.replicated(
        MESH, 2)).numpy(), want, rtol=1e-5, atol=1e-6)
    # the same step eagerly (each op a sharded program)
    w.assign(dtensor.relayout(tf.constant(w0), w_layout))
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(dx, w) - dy))
    opt.apply_gradients([(tape.gradient(loss, w), w)])
    np.testing.assert_allclose(dtensor.relayout(w.read_value(), dtensor.Layout.replicated(
        MESH, 2)).numpy(), want, rtol=1e-5, atol=1e-6)


def test_checkpoint_round_trip_restores_into_layout(tmp_path):
    layout = dtensor.Layout.batch_sharded(MESH, "x", 2)
    w0 = rand(N, 2)
    v = dtensor.DVariable(dtensor.relayout(tf.constant(w0), layout))
    path = tf.train.Checkpoint(v=v).save(str(tmp_path / "ckpt"))
    v.assign(dtensor.relayout(tf.zeros([N, 2]), layout))
    tf.train.Checkpoint(v=v).restore(path)
    assert dtensor.fetch_layout(v.read_value()) == layout
    for got, want in zip(dtensor.unpack(v.read_value()), np.split(w0, N)):
        np.testing.assert_array_equal(got.numpy(), want)


def test_data_parallel_hlo_has_all_reduce():
    layout = dtensor.Layout.batch_sharded(MESH, "x", 2)
    dx = dtensor.relayout(tf.constant(rand(2 * N, 3)), layout)
    ir = _mlp.experimental_get_compiler_ir(dx, tf.constant(rand(3, 2)))
    assert "all-reduce" not in ir(stage="optimized_hlo")   # rows are independent
    total = tf.function(lambda a: tf.reduce_sum(a, axis=0), jit_compile=True)
    assert "all-reduce(" in total.experimental_get_compiler_ir(dx)(stage="optimized_hlo")


# --- MirroredStrategy ----------------------------------------------------------------------
def _per_replica(strategy, full):
    rows = len(full) // N
    return strategy.experimental_distribute_values_from_function(
        lambda ctx: full[ctx.replica_id_in_sync_group * rows:
                         (ctx.replica_id_in_sync_group + 1) * rows])


def test_mirrored_strategy_step_equals_full_batch_step():
    strategy = tf.distribute.MirroredStrategy()
    assert strategy.num_replicas_in_sync == N
    x, y, w0 = rand(2 * N, 3), rand(2 * N, 2), rand(3, 2)
    with strategy.scope():
        # TF 2.21: get_replica_context() is None in the cross-replica context of scope()
        assert tf.distribute.get_replica_context() is None
        w = tf.Variable(w0)
        opt = tf.keras.optimizers.SGD(0.1)
    assert tf.distribute.get_replica_context().num_replicas_in_sync == 1

    def step(a, b):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(tf.matmul(a, w) - b)) / float(y.size)
        opt.apply_gradients([(tape.gradient(loss, w), w)])
        return loss, tf.distribute.get_replica_context().all_reduce("SUM", loss)

    losses, summed = strategy.run(step, args=(_per_replica(strategy, x),
                                              _per_replica(strategy, y)))
    err = x @ w0 - y
    per = [np.sum(np.square(e)) / y.size for e in np.split(err, N)]
    np.testing.assert_allclose([t.numpy() for t in losses.values], per, rtol=1e-5)
    np.testing.assert_allclose([t.numpy() for t in summed.values], [sum(per)] * N, rtol=1e-5)
    np.testing.assert_allclose(strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)
                               .numpy(), sum(per), rtol=1e-5)
    np.testing.assert_allclose(w.numpy(), _reference_step(x, y, w0, 0.1), rtol=1e-5,
                               atol=1e-6)


def test_mirrored_strategy_reduce_along_axis():
    strategy = tf.distribute.MirroredStrategy()
    x = rand(2 * N, 3)
    dx = _per_replica(strategy, x)
    np.testing.assert_allclose(strategy.reduce("MEAN", dx, axis=0).numpy(), x.mean(0),
                               rtol=1e-5)
    np.testing.assert_allclose(strategy.reduce("SUM", dx, axis=0).numpy(), x.sum(0),
                               rtol=1e-5)
    assert len(strategy.experimental_local_results(dx)) == N


def test_relayout_inside_function_is_a_sharding_constraint():
    batch = dtensor.Layout.batch_sharded(MESH, "x", 2)

    def body(a):
        return dtensor.relayout(tf.matmul(a, a, transpose_b=True), batch) * 2.0
    x = rand(N, 3)
    f = tf.function(body, jit_compile=True)
    out = f(tf.constant(x))   # a plain argument: the relayout puts the function on MESH
    assert dtensor.fetch_layout(out) == batch
    np.testing.assert_allclose(dtensor.relayout(out, dtensor.Layout.replicated(MESH, 2))
                               .numpy(), 2 * x @ x.T, rtol=1e-5, atol=1e-5)
    ir = f.experimental_get_compiler_ir(tf.constant(x))
    assert 'sdy.sharding_constraint' in ir(stage="stablehlo")
    assert "HloModule" in ir(stage="hlo")
    plain = tf.function(body)(tf.constant(x))   # without jit_compile too, as TF's DTensor
    assert dtensor.fetch_layout(plain) == batch
    np.testing.assert_allclose(dtensor.relayout(plain, dtensor.Layout.replicated(MESH, 2))
                               .numpy(), 2 * x @ x.T, rtol=1e-5, atol=1e-5)


def test_memory_analysis_is_per_device():
    x = tf.constant(rand(4 * N, 8))
    d = dtensor.relayout(x, dtensor.Layout.batch_sharded(MESH, "x", 2))
    double = tf.function(lambda a: a * 2.0, jit_compile=True)
    stats = double.experimental_get_compiler_ir(d).memory_analysis()
    assert stats["argument_size_in_bytes"] == 4 * 8 * 4   # one device's (4, 8) f32 shard
    assert stats["output_size_in_bytes"] == 4 * 8 * 4


def test_mirrored_strategy_broadcasts_regular_tensors_and_takes_devices():
    strategy = tf.distribute.MirroredStrategy(devices=["/cpu:0", "/cpu:1"])
    assert strategy.num_replicas_in_sync == 2
    out = strategy.run(lambda a: a * 2.0, args=(tf.constant([1.0, 2.0]),))
    # TF 2.21: a regular tensor argument reaches every replica whole
    assert [v.numpy().tolist() for v in strategy.experimental_local_results(out)] == \
        [[2.0, 4.0]] * 2
