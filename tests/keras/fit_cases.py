"""The models, data and initial weights the Keras-on-TF recording (tools/record_keras.py) and
flowjit's tests share; every function takes the `keras` module to build with."""
from __future__ import annotations

import numpy as np

EPOCHS = 2
BATCH = 16


def data(case):
    """Train and validation arrays: 70 training samples, so the last batch is short."""
    rng = np.random.default_rng(7)
    shape = (12,) if case.startswith("mlp") else (8, 8, 2)
    x = rng.normal(size=(70 + 20,) + shape).astype("float32")
    y = (x.reshape(len(x), -1)[:, :3].sum(axis=1) > 0).astype("int32") + \
        (x.reshape(len(x), -1)[:, 3] > 1).astype("int32")
    return (x[:70], y[:70]), (x[70:], y[70:])


def _mlp(keras):
    return keras.Sequential([keras.Input((12,)), keras.layers.Dense(16, activation="relu"),
                             keras.layers.Dense(8, activation="tanh"),
                             keras.layers.Dense(3, activation="softmax")])


def _conv(keras):
    return keras.Sequential([
        keras.Input((8, 8, 2)), keras.layers.Conv2D(4, 3, activation="relu"),
        keras.layers.MaxPooling2D(2), keras.layers.Conv2D(6, 2, padding="same"),
        keras.layers.BatchNormalization(), keras.layers.Activation("relu"),
        keras.layers.Flatten(), keras.layers.Dropout(0.0), keras.layers.Dense(3)])


CASES = {
    # name: (model, optimizer, loss, from_logits)
    "mlp_sgd": (_mlp, lambda k: k.optimizers.SGD(0.1, momentum=0.9), False),
    "mlp_adam": (_mlp, lambda k: k.optimizers.Adam(0.01), False),
    # SGD, not Adam: the bias before BatchNormalization has a zero gradient but for rounding,
    # which Adam's normalized steps would amplify to the learning rate
    "conv_sgd": (_conv, lambda k: k.optimizers.SGD(0.05, momentum=0.9), True),
    # float16 compute: a LossScaleOptimizer, whose scale update is a cond run for its effects
    "mlp_sgd_mixed_float16": (_mlp, lambda k: k.optimizers.SGD(0.1), False),
}
# dtype policies other than float32 (set around building and fitting)
POLICIES = {"mlp_sgd_mixed_float16": "mixed_float16"}


def build(keras, case):
    """The compiled model of `case`, its weights set from a fixed seed."""
    make_model, make_optimizer, from_logits = CASES[case]
    model = make_model(keras)
    rng = np.random.default_rng(3)
    model.set_weights([rng.uniform(-0.5, 0.5, size=w.shape).astype("float32")
                       if w.ndim > 1 or "gamma" not in v.path else np.ones(w.shape, "float32")
                       for w, v in zip(model.get_weights(), model.weights)])
    return model, make_optimizer(keras), keras.losses.SparseCategoricalCrossentropy(
        from_logits=from_logits)


def fit(keras, case, jit_compile=False):
    """history.history of two epochs of `fit` with validation, and `evaluate`/`predict`
    (and a loss-scale optimizer's state)."""
    keras.mixed_precision.set_global_policy(POLICIES.get(case, "float32"))
    try:
        return _fit(keras, case, jit_compile)
    finally:
        keras.mixed_precision.set_global_policy("float32")


def _fit(keras, case, jit_compile):
    model, optimizer, loss = build(keras, case)
    model.compile(optimizer=optimizer, loss=loss, jit_compile=jit_compile,
                  metrics=[keras.metrics.SparseCategoricalAccuracy(name="acc")])
    (x, y), (vx, vy) = data(case)
    history = model.fit(x, y, batch_size=BATCH, epochs=EPOCHS, shuffle=False,
                        validation_data=(vx, vy), verbose=0)
    evaluated = model.evaluate(vx, vy, batch_size=BATCH, verbose=0, return_dict=True)
    predicted = model.predict(vx[:5], verbose=0)
    out = {"history": {k: [float(v) for v in vs] for k, vs in history.history.items()},
           "evaluate": {k: float(v) for k, v in evaluated.items()},
           "predict": np.asarray(predicted).tolist()}
    if hasattr(model.optimizer, "dynamic_scale"):
        out["loss_scale"] = {"step_counter": int(model.optimizer.step_counter.numpy()),
                             "dynamic_scale": float(model.optimizer.dynamic_scale.numpy()),
                             "iterations": int(model.optimizer.iterations.numpy())}
    return out
