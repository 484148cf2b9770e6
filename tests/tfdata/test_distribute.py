"""Datasets over MirroredStrategy replicas (2 forced host CPUs, in a subprocess so the rest of
the suite keeps one device): split global batches and per-replica pipelines feed
`strategy.run`."""
import textwrap

from helpers import run_script

SCRIPT = textwrap.dedent("""
    import numpy as np
    import flowjit as tf

    cpu = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(cpu[0], [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy()
    assert strategy.num_replicas_in_sync == 2

    x = np.arange(24, dtype=np.float32).reshape(12, 2)
    ds = tf.data.Dataset.from_tensor_slices(x).batch(4)
    dist = strategy.experimental_distribute_dataset(ds)
    sums = []
    for batch in dist:
        assert [v.shape.as_list() for v in batch.values] == [[2, 2], [2, 2]]
        out = strategy.run(lambda b: tf.reduce_sum(b), args=(batch,))
        sums.append([float(v) for v in out.values])
    want = [[float(x[i:i + 2].sum()), float(x[i + 2:i + 4].sum())] for i in range(0, 12, 4)]
    assert sums == want, (sums, want)

    def dataset_fn(ctx):
        assert ctx.num_replicas_in_sync == 2 and ctx.input_pipeline_id == 0
        return tf.data.Dataset.range(8).batch(ctx.get_per_replica_batch_size(4))
    per = [[v.numpy().tolist() for v in e.values]
           for e in strategy.distribute_datasets_from_function(dataset_fn)]
    assert per == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]], per

    # composite batches split by rows as TF's: a SparseTensor's dense shape and a
    # RaggedTensor's rows per replica, an empty RaggedTensor for a replica without rows
    sparse = tf.sparse.SparseTensor([[0, 0], [1, 2], [2, 1]], [1, 2, 3], [3, 4])
    got = [[tf.sparse.to_dense(v).numpy().tolist() for v in e.values] for e in
           strategy.experimental_distribute_dataset(
               tf.data.Dataset.from_tensor_slices(sparse).batch(3))]
    assert got == [[[[1, 0, 0, 0], [0, 0, 2, 0]], [[0, 3, 0, 0]]]], got
    ragged = tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1, 2], [3], [], [4, 5, 6]]))
    got = [[v.to_list() for v in e.values]
           for e in strategy.experimental_distribute_dataset(ragged.batch(3))]
    assert got == [[[[1, 2], [3]], [[]]], [[[4, 5, 6]], []]], got
    got = [[v.to_list() for v in e.values]
           for e in strategy.distribute_datasets_from_function(lambda ctx: ragged.batch(2))]
    assert got == [[[[1, 2], [3]], [[], [4, 5, 6]]]], got
    try:
        tf.distribute.InputContext(1, 0, 2).get_per_replica_batch_size(5)
    except ValueError as e:
        assert "is not divisible by `num_replicas_in_sync` 2" in str(e)
    else:
        raise AssertionError("no error")
    print("ok")
""")


def test_distributed_datasets_feed_replicas(tmp_path):
    script = tmp_path / "dist.py"
    script.write_text(SCRIPT)
    run = run_script(script)
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stderr[-3000:]
