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
    strategy = tf.distribute.MirroredStrategy(["cpu:0", "cpu:1"])
    out["replicas"] = strategy.num_replicas_in_sync
    with strategy.scope():
        v = tf.Variable([1.0, 2.0])
    local = strategy.experimental_local_results(v)
    out["local_results_variable"] = [[d, t.numpy().tolist()] for d, t in
                                     zip(_devices(local), local)]
    plain = tf.Variable(3.0)
    out["local_results_plain"] = len(strategy.experimental_local_results(plain))
    return out


def split_host(tf):
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.experimental.set_virtual_device_configuration(
        cpu, [tf.config.experimental.VirtualDeviceConfiguration()] * 2)


if __name__ == "__main__":
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import flowjit as tf
    split_host(tf)
    print(json.dumps(run(tf)))
