"""Input pipelines: flowjit's tf.data against TF's tf.data, in one run, as examples/s.

    python bench/input_pipeline.py [--quick] [--with-tf]

Each scenario is one function of the framework module (`flowjit` or `tensorflow`), so both
run the same program. Without `--with-tf` (or when TF is not importable) only flowjit's
numbers are shown; the project never imports TF outside this flag.
  - map: from_tensor_slices -> map (elementwise ops and a Python function) -> shuffle ->
    batch -> prefetch
  - text: TextLineDataset -> split -> padded_batch
  - train: an MLP's SGD steps in a tf.function fed by shuffle -> batch -> prefetch
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")   # as run.py: before numpy loads its BLAS

import argparse  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import table  # noqa: E402


def _map_pipeline(tf, n):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 16)).astype(np.float32)
    y = rng.integers(0, 10, size=n).astype(np.int64)

    def py_scale(v):
        return (v * 0.5).astype(np.float32)

    def features(a, b):
        a = tf.nn.relu(a * 2.0 + 1.0) - tf.sqrt(tf.abs(a))
        a = tf.numpy_function(py_scale, [a], tf.float32)
        return a, b + 1

    ds = (tf.data.Dataset.from_tensor_slices((x, y))
          .map(features, num_parallel_calls=tf.data.AUTOTUNE)
          .shuffle(1000, seed=1).batch(128).prefetch(tf.data.AUTOTUNE))
    return ds, n


def _text_pipeline(tf, n, folder):
    path = os.path.join(folder, "lines.txt")
    if not os.path.exists(path):
        rng = np.random.default_rng(1)
        words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
        with open(path, "w") as f:
            for _ in range(n):
                f.write(" ".join(rng.choice(words, size=rng.integers(1, 12))) + "\n")
    ds = (tf.data.TextLineDataset(path).map(lambda line: tf.strings.split(line))
          .padded_batch(64, padded_shapes=[None], padding_values=""))
    return ds, n


def _examples_per_s(ds, n, repeat):
    best = 0.0
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in ds:
            pass
        best = max(best, n / (time.perf_counter() - t0))
    return best


def _train(tf, n):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(n, 64)).astype(np.float32)
    y = rng.integers(0, 10, size=n).astype(np.int64)
    w1 = tf.Variable(rng.normal(size=(64, 128)).astype(np.float32) * 0.1)
    w2 = tf.Variable(rng.normal(size=(128, 10)).astype(np.float32) * 0.1)

    @tf.function
    def step(xb, yb):
        with tf.GradientTape() as tape:
            logits = tf.matmul(tf.nn.relu(tf.matmul(xb, w1)), w2)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(yb, logits))
        g1, g2 = tape.gradient(loss, [w1, w2])
        w1.assign_sub(0.01 * g1)
        w2.assign_sub(0.01 * g2)
        return loss

    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(2048, seed=3).batch(128) \
        .prefetch(2)

    def epoch():
        for xb, yb in ds:
            step(xb, yb)
    epoch()   # trace
    return epoch


def measure(tf, cfg, folder) -> dict:
    ds, n = _map_pipeline(tf, cfg["n_map"])
    out = {"map": _examples_per_s(ds, n, cfg["repeat"])}
    ds, n = _text_pipeline(tf, cfg["n_text"], folder)
    out["text"] = _examples_per_s(ds, n, cfg["repeat"])
    epoch = _train(tf, cfg["n_train"])
    best = 0.0
    for _ in range(cfg["repeat"]):
        t0 = time.perf_counter()
        epoch()
        best = max(best, cfg["n_train"] / (time.perf_counter() - t0))
    out["train"] = best
    return out


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--with-tf", action="store_true")
    args = p.parse_args(argv)
    cfg = ({"n_map": 5000, "n_text": 2000, "n_train": 2560, "repeat": 1} if args.quick else
           {"n_map": 100_000, "n_text": 20_000, "n_train": 25_600, "repeat": 2})
    import flowjit
    frameworks = {"flowjit": flowjit}
    if args.with_tf:
        try:
            import tensorflow
            frameworks["tf"] = tensorflow
        except ImportError:
            print("TensorFlow is not importable: flowjit's numbers only")
    with tempfile.TemporaryDirectory() as folder:
        results = {name: measure(mod, cfg, folder) for name, mod in frameworks.items()}
    labels = {"map": f"slices->map->shuffle->batch->prefetch, {cfg['n_map']} examples",
              "text": f"TextLine->split->padded_batch, {cfg['n_text']} lines",
              "train": f"MLP SGD fed by a dataset, {cfg['n_train']} examples/epoch"}
    rows = []
    for key, label in labels.items():
        ours = results["flowjit"][key]
        theirs = results.get("tf", {}).get(key)
        rows.append([label, f"{ours:,.0f}", "-" if theirs is None else f"{theirs:,.0f}",
                     "-" if theirs is None else f"{ours / theirs:.3f}x"])
    print(table(rows, ["pipeline", "flowjit examples/s", "TF examples/s", "flowjit/TF"]))
    return results


if __name__ == "__main__":
    main()
