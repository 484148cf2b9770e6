"""One client of test_multiprocess.py: 2 CPU devices per process, a 4-device mesh across
both processes, one data-parallel SGD step; prints the weights (as JSON) on success.
With a second argument "die", client 1 exits after joining, before the step."""
import json
import os
import sys

import numpy as np

import flowjit as tf
from flowjit.experimental import dtensor

cpu = tf.config.list_physical_devices("CPU")
tf.config.set_logical_device_configuration(cpu[0], [tf.config.LogicalDeviceConfiguration()] * 2)
dtensor.initialize_accelerator_system("CPU")
if len(sys.argv) > 1 and sys.argv[1] == "die" and dtensor.client_id() == 1:
    os._exit(3)
mesh = dtensor.create_distributed_mesh([("x", 4)], device_type="CPU")
rng = np.random.default_rng(0)
x, y, w0 = (rng.standard_normal(s).astype(np.float32) for s in ((8, 3), (8, 2), (3, 2)))
w = dtensor.DVariable(dtensor.relayout(tf.constant(w0), dtensor.Layout.replicated(mesh, 2)))
opt = tf.keras.optimizers.SGD(0.1)


@tf.function(jit_compile=True)
def step(a, b):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(a, w) - b))
    opt.apply_gradients([(tape.gradient(loss, w), w)])
    return loss


batch = dtensor.Layout.batch_sharded(mesh, "x", 2)
step(dtensor.relayout(tf.constant(x), batch), dtensor.relayout(tf.constant(y), batch))
print(json.dumps({"client": dtensor.client_id(), "clients": dtensor.num_clients(),
                  "devices": mesh.size, "local": mesh.num_local_devices(),
                  "w": w.read_value().numpy().tolist()}))
