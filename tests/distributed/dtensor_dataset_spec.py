"""The DTensorDataset cases TF 2.21 was recorded on (tools/record_dtensor_dataset.py) and
flowjit is checked on (dtensor_dataset_cases.py): expressions both evaluate, over the names
`scope` builds with either library. A mesh b=2 x m=2 of the first four CPUs; `lay_b` shards
the batch over b, `lay_r` replicates."""

CASES = {
    "sharded_on_b": "dtensor.DTensorDataset(ds, mesh=mesh, layouts=lay_b, global_batch_size=4, batch_dim='b')",
    "replicated": "dtensor.DTensorDataset(ds, mesh=mesh, layouts=lay_r, global_batch_size=4)",
    "replicated_odd_batch": "dtensor.DTensorDataset(ds, mesh=mesh, layouts=lay_r, global_batch_size=5)",
    "already_batched": "dtensor.DTensorDataset(ds.batch(2, drop_remainder=True), mesh=mesh, layouts=lay_b, global_batch_size=4, dataset_already_batched=True, batch_dim='b')",
    "prefetched": "dtensor.DTensorDataset(ds, mesh=mesh, layouts=lay_b, global_batch_size=2, batch_dim='b', prefetch=2)",
}
ERRORS = {
    "unknown_batch_dim": "dtensor.DTensorDataset(ds, mesh=mesh, layouts=lay_b, global_batch_size=4, batch_dim='nope')",
    "layout_without_batch_dim": "dtensor.DTensorDataset(ds, mesh=mesh, layouts=lay_r, global_batch_size=4, batch_dim='b')",
    "structure_mismatch": "dtensor.DTensorDataset(ds, mesh=mesh, layouts=lay_b[0], global_batch_size=4, batch_dim='b')",
    "rank_mismatch": "dtensor.DTensorDataset(ds, mesh=mesh, layouts=lay_b3, global_batch_size=4, batch_dim='b')",
    "unknown_batch_size": "dtensor.DTensorDataset(ds.batch(2), mesh=mesh, layouts=lay_b, global_batch_size=4, dataset_already_batched=True, batch_dim='b')",
    "wrong_per_replica_size": "dtensor.DTensorDataset(ds.batch(3, drop_remainder=True), mesh=mesh, layouts=lay_b, global_batch_size=4, dataset_already_batched=True, batch_dim='b')",
    "multi_client": "dtensor.DTensorDataset(ds, mesh=mesh, layouts=lay_b, global_batch_size=4, batch_dim='b', tf_data_service_config=object())",
}


def scope(tf, dtensor):
    """The names the case expressions use, built with TF or with flowjit."""
    devices = [f"/job:localhost/replica:0/task:0/device:CPU:{k}" for k in range(4)]
    mesh = dtensor.create_mesh([("b", 2), ("m", 2)], devices=devices, device_type="CPU")
    ds = tf.data.Dataset.from_tensor_slices(
        (tf.reshape(tf.range(36.), [12, 3]), tf.range(12) * 10))
    lay_b = (dtensor.Layout.batch_sharded(mesh, "b", 2), dtensor.Layout.batch_sharded(mesh, "b", 1))
    lay_r = (dtensor.Layout.replicated(mesh, 2), dtensor.Layout.replicated(mesh, 1))
    lay_b3 = (dtensor.Layout.batch_sharded(mesh, "b", 3), lay_b[1])
    return dict(tf=tf, dtensor=dtensor, mesh=mesh, ds=ds, lay_b=lay_b, lay_r=lay_r,
                lay_b3=lay_b3)
