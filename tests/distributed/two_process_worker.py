"""One client of test_multiprocess.py: 2 CPU devices per process, a 4-device mesh across
both processes, a data-parallel SGD step (batch split, weight replicated) and a model-parallel
one (weight split along its output dim over all 4 devices); prints the weights (as JSON).
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
w4_0, y4 = (rng.standard_normal(s).astype(np.float32) for s in ((3, 4), (8, 4)))
whole = dtensor.Layout.replicated(mesh, 2)


def sgd_step(w0, layout, batch_layout, target):
    """One compiled SGD step of mean((x @ w - target)**2) on a DVariable `w` laid out as
    `layout`, the batch laid out as `batch_layout`; returns the variable."""
    w = dtensor.DVariable(dtensor.relayout(tf.constant(w0), layout))
    opt = tf.keras.optimizers.SGD(0.1)   # Keras's optimizers serve the variables they built

    @tf.function(jit_compile=True)
    def step(a, b):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(a, w) - b))
        opt.apply_gradients([(tape.gradient(loss, w), w)])
        return loss
    step(dtensor.relayout(tf.constant(x), batch_layout),
         dtensor.relayout(tf.constant(target), batch_layout))
    return w


# data parallel: the batch split over the 4 devices, the weight replicated
w = sgd_step(w0, whole, dtensor.Layout.batch_sharded(mesh, "x", 2), y)
# model parallel: the weight split along its output dim over the 4 devices
w4 = sgd_step(w4_0, dtensor.Layout.inner_sharded(mesh, "x", 2), whole, y4)
print(json.dumps({"client": dtensor.client_id(), "clients": dtensor.num_clients(),
                  "devices": mesh.size, "local": mesh.num_local_devices(),
                  "w": w.read_value().numpy().tolist(),
                  "w_model_parallel":
                      dtensor.relayout(w4.read_value(), whole).numpy().tolist(),
                  "w_layout": str(dtensor.fetch_layout(w4).sharding_specs)}))
