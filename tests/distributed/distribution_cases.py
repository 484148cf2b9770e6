"""DTensor and MirroredStrategy behaviours on two logical CPUs, once against a `tf` module:
`tools/record_semantics.py` records TF 2.21's answers (tests/data/tf_semantics.json) and
`test_distribution_semantics.py` runs `python distribution_cases.py` under flowjit in a fresh
process (the logical devices are fixed before the backend starts) and compares. Run as a
script it prints flowjit's answers as JSON."""
import json
import os


def _devices(tensors):
    return [t.device.rsplit("/device:", 1)[1] for t in tensors]


def run(tf):
    """What each behaviour gives, as plain JSON values; the caller split the host CPU into
    two logical devices (TF's tf.config.experimental.set_virtual_device_configuration)."""
    dt = tf.experimental.dtensor
    out = {"logical_devices": [d.name for d in tf.config.list_logical_devices("CPU")]}
    mesh = dt.create_mesh([("x", 2)], devices=["CPU:0", "CPU:1"])
    replicated = dt.copy_to_mesh(tf.constant([1.5, 2.0]), dt.Layout.replicated(mesh, rank=1))
    sharded = dt.relayout(replicated, dt.Layout.batch_sharded(mesh, "x", rank=1))
    out["is_dtensor"] = [dt.is_dtensor(tf.constant(1.0)), dt.is_dtensor(replicated),
                         dt.is_dtensor(sharded)]
    out["repr_replicated"] = repr(replicated)
    out["str_replicated"] = str(replicated)
    out["repr_sharded"] = repr(sharded)
    out["unpack_replicated"] = _devices(dt.unpack(replicated))
    out["unpack_sharded"] = [[d, t.numpy().tolist()] for d, t in
                             zip(_devices(dt.unpack(sharded)), dt.unpack(sharded))]
    with dt.default_mesh(mesh):
        made = [tf.constant([1.0, 2.0]), tf.zeros([2]), tf.ones([2, 2]) * 3.0,
                tf.range(4), tf.constant(2.0) * 3.0]
    out["default_mesh"] = [[dt.is_dtensor(t), dt.fetch_layout(t).to_string()
                            if dt.is_dtensor(t) else None, t.numpy().tolist()] for t in made]
    out["after_default_mesh"] = dt.is_dtensor(tf.zeros([2]))
    strategy = tf.distribute.MirroredStrategy(["cpu:0", "cpu:1"])
    out["replicas"] = strategy.num_replicas_in_sync
    with strategy.scope():
        v = tf.Variable([1.0, 2.0])
    local = strategy.experimental_local_results(v)
    out["local_results_variable"] = [[d, t.numpy().tolist()] for d, t in
                                     zip(_devices(local), local)]
    plain = tf.Variable(3.0)
    out["local_results_plain"] = len(strategy.experimental_local_results(plain))
    out["run_in_function"] = _run_in_function(tf, strategy)
    return out


def _run_in_function(tf, strategy):
    """A custom training loop: `strategy.run` inside a `tf.function` over a distributed
    dataset, gradients all-reduced in the replica context, the losses reduced outside."""
    with strategy.scope():
        w = tf.Variable([[1.0], [-2.0]])
    data = tf.data.Dataset.from_tensor_slices(
        tf.reshape(tf.range(16, dtype=tf.float32), [8, 2]) / 4.0).batch(4)

    @tf.function
    def train_step(batch):
        def step_fn(x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(tf.matmul(x, w)))
            grad = tape.gradient(loss, w)
            grad = tf.distribute.get_replica_context().all_reduce("SUM", grad)
            w.assign_sub(0.01 * grad)
            return loss, tf.shape(x)[0]
        losses, rows = strategy.run(step_fn, args=(batch,))
        return strategy.reduce("SUM", losses, axis=None), \
            strategy.experimental_local_results(rows)

    steps = []
    for batch in strategy.experimental_distribute_dataset(data):
        loss, rows = train_step(batch)
        steps.append([round(float(loss), 4), [int(r) for r in rows]])
    return {"steps": steps, "traces": train_step.experimental_get_tracing_count(),
            "w": [[round(float(c), 5) for c in r] for r in w.numpy().tolist()],
            "copies": len(strategy.experimental_local_results(w))}


def split_host(tf):
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.experimental.set_virtual_device_configuration(
        cpu, [tf.config.experimental.VirtualDeviceConfiguration()] * 2)


if __name__ == "__main__":
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import flowjit as tf
    split_host(tf)
    print(json.dumps(run(tf)))
