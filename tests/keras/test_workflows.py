"""What users do with Keras, end to end on flowjit: functional and subclassed models, tf.data
input, callbacks (TensorBoard writes event files through flowjit's tf.summary), `summary()`,
and a Keras model differentiated inside a user's `tf.function`."""
from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

if importlib.util.find_spec("keras") is None:   # not importorskip: that binds Keras to TF
    pytest.skip("Keras 3 is flowjit's `keras` extra", allow_module_level=True)

import flowjit as tf  # noqa: E402

keras = tf.keras
RNG = np.random.default_rng(0)
X = RNG.normal(size=(40, 6)).astype("float32")
Y = (X[:, 0] > 0).astype("int32")


def _functional():
    inputs = keras.Input((6,))
    hidden = keras.layers.LayerNormalization()(keras.layers.Dense(4, activation="relu")(inputs))
    return keras.Model(inputs, keras.layers.Dense(2)(hidden))


def test_functional_model_fits_a_tf_data_dataset_like_the_same_arrays():
    runs = []
    for data in (tf.data.Dataset.from_tensor_slices((X, Y)).batch(8), None):
        keras.utils.set_random_seed(1)
        model = _functional()
        model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
        history = model.fit(data, epochs=2, verbose=0) if data is not None else \
            model.fit(X, Y, batch_size=8, epochs=2, shuffle=False, verbose=0)
        runs.append(history.history)
    assert len(runs[0]["loss"]) == 2 and runs[0]["loss"][1] < runs[0]["loss"][0]
    for key in runs[0]:
        np.testing.assert_allclose(runs[0][key], runs[1][key], rtol=1e-6, err_msg=key)


def test_subclassed_model_trains_and_summarizes(capsys):
    class TwoHeads(keras.Model):
        def __init__(self):
            super().__init__()
            self.body = keras.layers.Dense(5, activation="tanh")
            self.head = keras.layers.Dense(3)

        def call(self, x):
            return self.head(self.body(x))

    model = TwoHeads()
    model.compile("sgd", "mse", jit_compile="auto")
    target = RNG.normal(size=(40, 3)).astype("float32")
    before = model(X).numpy()
    history = model.fit(X, target, batch_size=16, epochs=2, verbose=0)
    assert history.history["loss"][1] < history.history["loss"][0]
    assert not np.allclose(model(X).numpy(), before)
    model.summary()
    assert "Trainable params: 53" in capsys.readouterr().out   # 6*5+5 + 5*3+3


@pytest.mark.parametrize("jit_compile", [False, True], ids=["executor", "xla"])
def test_keras_model_differentiated_in_a_user_function(jit_compile):
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(3)])

    @tf.function(jit_compile=jit_compile)
    def grads(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(model(x) ** 2)
        return tape.gradient(loss, model.trainable_variables)

    kernel, bias = (v.numpy() for v in model.trainable_variables)
    out = X @ kernel + bias
    got = grads(X)
    np.testing.assert_allclose(got[0].numpy(), X.T @ (2 * out), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[1].numpy(), (2 * out).sum(axis=0), rtol=1e-4, atol=1e-4)


def test_callbacks_stop_early_checkpoint_and_write_tensorboard_events(tmp_path):
    pytest.importorskip("tensorboard", reason="tf.summary is flowjit's `summary` extra")
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(2)])
    model.compile(keras.optimizers.SGD(5.0),   # a step so large the validation loss rises
                  keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(X, Y, epochs=10, validation_split=0.25, verbose=0, callbacks=[
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=0),
        keras.callbacks.ModelCheckpoint(str(tmp_path / "best.keras"), save_best_only=True),
        keras.callbacks.TensorBoard(str(tmp_path / "logs"))])
    assert len(history.history["loss"]) < 10
    assert os.path.exists(tmp_path / "best.keras")
    for split in ("train", "validation"):
        events = os.listdir(tmp_path / "logs" / split)
        assert any(name.startswith("events.out.tfevents") for name in events), events


def _sparse_rows():
    """12 rows of 5 features, mostly zero, rows 0, 4 and 7 all zero (Keras's sparse matmul
    fills empty rows), as a SparseTensor and as the dense array."""
    dense = np.where(RNG.random((12, 5)) < 0.35, RNG.normal(size=(12, 5)), 0).astype("float32")
    dense[[0, 4, 7]] = 0
    ix = np.argwhere(dense != 0)
    return tf.SparseTensor(ix, dense[ix[:, 0], ix[:, 1]], dense.shape), dense


@pytest.mark.parametrize("batch_size", [4, 5])
def test_a_sparse_input_fits_like_its_dense_twin(batch_size):
    """TF 2.21 with Keras fits a SparseTensor `x` (and a dataset of them) through its sparse
    matmul; the steps are the dense array's (same products, summed in another order)."""
    sparse, dense = _sparse_rows()
    y = RNG.normal(size=(12, 1)).astype("float32")
    feeds = {"dense": lambda: ((dense, y), {"batch_size": batch_size, "shuffle": False}),
             "sparse": lambda: ((sparse, y), {"batch_size": batch_size, "shuffle": False}),
             "dataset": lambda: ((tf.data.Dataset.from_tensor_slices((sparse, y))
                                  .batch(batch_size),), {})}
    losses, kernels = {}, {}
    for name, feed in feeds.items():
        model = keras.Sequential([keras.Input((5,), sparse=name != "dense"),
                                  keras.layers.Dense(1)])
        model.set_weights([np.linspace(-1, 1, 5, dtype="float32").reshape(5, 1),
                           np.array([0.5], "float32")])
        model.compile(keras.optimizers.SGD(0.1), "mse")
        args, kwargs = feed()
        losses[name] = model.fit(*args, epochs=3, verbose=0, **kwargs).history["loss"]
        kernels[name] = model.get_weights()[0]
    assert losses["dense"][2] < losses["dense"][0]
    for name in ("sparse", "dataset"):
        np.testing.assert_allclose(losses[name], losses["dense"], rtol=1e-5)
        np.testing.assert_allclose(kernels[name], kernels["dense"], rtol=1e-5, atol=1e-6)


def test_dropout_layers_drop_while_training_and_fit():
    """Keras's Dropout draws through tf.nn.experimental.stateless_dropout: kept values scaled
    by 1 / (1 - rate), about `rate` of them zero, none at inference; a model with one fits."""
    layer = keras.layers.Dropout(0.5, seed=1)
    ones = np.ones((4, 100), "float32")
    dropped = np.asarray(layer(ones, training=True))
    assert set(np.unique(dropped)) == {0.0, 2.0} and 0.35 < (dropped == 0).mean() < 0.65
    np.testing.assert_array_equal(np.asarray(layer(ones, training=False)), ones)
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                              keras.layers.Dropout(0.5), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    history = model.fit(X, Y.astype("float32"), batch_size=8, epochs=2, verbose=0)
    assert all(np.isfinite(history.history["loss"]))


def _seeded_regressor():
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(4, activation="relu"),
                              keras.layers.Dense(1)])
    model.set_weights([np.linspace(-1, 1, 24, dtype="float32").reshape(6, 4),
                       np.zeros(4, "float32"),
                       np.linspace(0.5, -0.5, 4, dtype="float32").reshape(4, 1),
                       np.zeros(1, "float32")])
    model.compile(keras.optimizers.Adam(0.01), "mse")
    return model


@pytest.mark.parametrize("built", [True, False], ids=["optimizer-built", "deferred"])
def test_tf_train_checkpoint_of_a_keras_model_resumes_like_uninterrupted(tmp_path, built):
    """TF 2.21's idiom: tf.train.Checkpoint(model=, optimizer=) with a CheckpointManager. A
    fresh model restored from it trains on exactly as the uninterrupted one (TF 2.21 alike,
    bit for bit), also when its optimizer's slots are created after the restore."""
    y = X[:, :1] * 2
    uninterrupted = _seeded_regressor()
    uninterrupted.fit(X, y, batch_size=8, epochs=4, shuffle=False, verbose=0)
    first = _seeded_regressor()
    first.fit(X, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    manager = tf.train.CheckpointManager(
        tf.train.Checkpoint(model=first, optimizer=first.optimizer), str(tmp_path), 2)
    manager.save()
    resumed = _seeded_regressor()
    if built:
        resumed.optimizer.build(resumed.trainable_variables)
    tf.train.Checkpoint(model=resumed, optimizer=resumed.optimizer).restore(
        tf.train.latest_checkpoint(str(tmp_path)))
    assert int(resumed.optimizer.iterations.numpy()) == 10
    resumed.fit(X, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    for got, want in zip(resumed.get_weights(), uninterrupted.get_weights()):
        np.testing.assert_array_equal(got, want)


def test_model_export_loads_and_serves_the_models_predictions(tmp_path):
    """Keras's `model.export` writes a SavedModel through tf.saved_model.save (walking its
    variables with tf.train.TrackableView); the loaded `serve` predicts as the model."""
    model = _seeded_regressor()
    model.export(str(tmp_path / "exported"), verbose=False)
    loaded = tf.saved_model.load(str(tmp_path / "exported"))
    np.testing.assert_allclose(loaded.serve(tf.constant(X[:5])).numpy(),
                               model.predict(X[:5], verbose=0), rtol=1e-6)
    assert len(loaded.variables) == 4


def test_lookup_preprocessing_layers_give_tfs_values():
    """TF 2.21 + Keras 3.15 recorded: TextVectorization's adapted vocabulary (counts, ties by
    token) and outputs, StringLookup (OOV, invert, multi_hot) and IntegerLookup, through
    tf.lookup's tables."""
    texts = np.array(["the cat sat", "a dog ran far", "the dog sat", "cat"])
    vectorize = keras.layers.TextVectorization(max_tokens=20, output_sequence_length=4)
    vectorize.adapt(texts)
    assert [str(t) for t in vectorize.get_vocabulary()] == [
        "", "[UNK]", "the", "sat", "dog", "cat", "ran", "far", "a"]
    assert np.asarray(vectorize(texts)).tolist() == [
        [2, 5, 3, 0], [8, 4, 6, 7], [2, 4, 3, 0], [5, 0, 0, 0]]
    strings = keras.layers.StringLookup(vocabulary=["a", "b"])
    assert np.asarray(strings(tf.constant([["a", "c"], ["b", ""]]))).tolist() == [[1, 0], [2, 0]]
    inverse = keras.layers.StringLookup(vocabulary=["a", "b"], invert=True)
    assert np.asarray(inverse(tf.constant([2, 0, 1]))).tolist() == [b"b", b"[UNK]", b"a"]
    hot = keras.layers.StringLookup(vocabulary=["a", "b"], output_mode="multi_hot")
    assert np.asarray(hot(tf.constant([["a", "b", "a"], ["z", "z", "z"]]))).tolist() == [
        [0, 1, 1], [1, 0, 0]]
    integers = keras.layers.IntegerLookup()
    integers.adapt(np.array([7, 7, 3, 9, 7, 3]))
    assert [int(t) for t in integers.get_vocabulary()] == [-1, 7, 3, 9]
    assert np.asarray(integers(tf.constant([3, 4, 7]))).tolist() == [2, 0, 1]


def test_geometric_augmentation_layers_give_tfs_images():
    """TF 2.21 + Keras 3.15 recorded, with each layer's range pinned to one value (so no
    random draw matters): a quarter turn, a 2x zoom in, a shift by a quarter each way,
    through tf.raw_ops.ImageProjectiveTransformV3."""
    image = np.arange(16, dtype="float32").reshape(1, 4, 4, 1)
    turned = keras.layers.RandomRotation((0.25, 0.25), interpolation="nearest",
                                         fill_mode="constant")(image, training=True)
    assert np.asarray(turned)[0, :, :, 0].tolist() == [
        [3, 7, 11, 15], [2, 6, 10, 14], [1, 5, 9, 13], [0, 4, 8, 12]]
    zoomed = keras.layers.RandomZoom((-0.5, -0.5), interpolation="nearest")(image, training=True)
    assert np.asarray(zoomed)[0, :, :, 0].tolist() == [
        [5, 5, 6, 6], [5, 5, 6, 6], [9, 9, 10, 10], [9, 9, 10, 10]]
    shifted = keras.layers.RandomTranslation((0.25, 0.25), (-0.25, -0.25), fill_mode="constant",
                                             interpolation="nearest")(image, training=True)
    assert np.asarray(shifted)[0, :, :, 0].tolist() == [
        [0, 0, 0, 0], [1, 2, 3, 0], [5, 6, 7, 0], [9, 10, 11, 0]]
