"""Input pipelines: flowjit's tf.data against TF's tf.data, in one run, as examples/s.

    python bench/input_pipeline.py [--quick] [--with-tf]

(`python -m bench` runs the same pipelines as three of its rows.)
The frameworks run interleaved, round by round, and each number is the median over the
rounds. Each scenario is one function of the framework module (`flowjit` or `tensorflow`), so both
run the same program. Without `--with-tf` (or when TF is not importable) only flowjit's
numbers are shown; the project never imports TF outside this flag.
  - map: from_tensor_slices -> map (elementwise ops and a Python function) -> shuffle ->
    batch -> prefetch
  - text: TextLineDataset -> split -> padded_batch
  - train: an MLP's SGD steps in a tf.function fed by shuffle -> batch -> prefetch
"""
from __future__ import annotations

import os

if __name__ == "__main__":   # run alone: before numpy loads its BLAS (run.py sets nothing)
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
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


def _epoch_s(ds):
    """Seconds of one pass over `ds`."""
    t0 = time.perf_counter()
    for _ in ds:
        pass
    return time.perf_counter() - t0


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
        """(seconds of the epoch, of them the seconds the step waited for its batch)."""
        waited = 0.0
        t0 = time.perf_counter()
        it = iter(ds)
        while True:
            t1 = time.perf_counter()
            try:
                xb, yb = next(it)
            except StopIteration:
                break
            waited += time.perf_counter() - t1
            step(xb, yb)
        return time.perf_counter() - t0, waited
    epoch()   # trace
    return epoch


SIZES = {"quick": {"n_map": 5000, "n_text": 2000, "n_train": 2560, "rounds": 1},
         "full": {"n_map": 100_000, "n_text": 20_000, "n_train": 25_600, "rounds": 3}}


def build(tf, cfg, folder) -> dict:
    """The three pipelines of one framework: name -> (pass, examples per pass)."""
    ds_map, n_map = _map_pipeline(tf, cfg["n_map"])
    ds_text, n_text = _text_pipeline(tf, cfg["n_text"], folder)
    return {"map": (lambda: (_epoch_s(ds_map), 0.0), n_map),
            "text": (lambda: (_epoch_s(ds_text), 0.0), n_text),
            "train": (_train(tf, cfg["n_train"]), cfg["n_train"])}


def measure(frameworks: dict, cfg, folder) -> dict:
    """Every pipeline of every framework, the frameworks interleaved round by round (the
    load of a shared machine weighs on each alike); medians over the rounds.
    Returns {framework: {pipeline: examples/s, "train_idle": the step's waiting share}}."""
    built = {name: build(mod, cfg, folder) for name, mod in frameworks.items()}
    times = {name: {key: [] for key in pipes} for name, pipes in built.items()}
    waits = {name: [] for name in built}
    for _ in range(cfg["rounds"]):
        for name, pipes in built.items():
            for key, (run, n) in pipes.items():
                seconds, waited = run()
                times[name][key].append(seconds)
                if key == "train":
                    waits[name].append(waited / seconds)
    return {name: {**{key: pipes[key][1] / statistics.median(times[name][key])
                      for key in pipes}, "train_idle": statistics.median(waits[name])}
            for name, pipes in built.items()}


def input_pipelines(cfg) -> dict:
    """`python -m bench`'s rows (run.py): seconds per example of each pipeline for flowjit
    and, with --with-tf, for TF; examples/s and the training step's idle share in notes."""
    import tf_reference
    import flowjit
    frameworks = {"flowjit": flowjit}
    if cfg.with_tf and tf_reference.load() is not None:
        frameworks["tf"] = tf_reference.load()
    with tempfile.TemporaryDirectory() as folder:
        got = measure(frameworks, SIZES["quick" if cfg.quick else "full"], folder)
    out = {}
    for name, numbers in got.items():
        prefix = "" if name == "flowjit" else "tf_"
        for key in ("map", "text", "train"):
            out[prefix + key] = 1.0 / numbers[key]
            out[prefix + key + "_eps"] = numbers[key]
        out[prefix + "train_idle"] = numbers["train_idle"]
    for key in ("map_eps", "text_eps", "train_eps", "train_idle"):
        out.setdefault("tf_" + key, float("nan"))
    return out


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--with-tf", action="store_true")
    args = p.parse_args(argv)
    cfg = SIZES["quick" if args.quick else "full"]
    import flowjit
    frameworks = {"flowjit": flowjit}
    if args.with_tf:
        try:
            import tensorflow
            frameworks["tf"] = tensorflow
        except ImportError:
            print("TensorFlow is not importable: flowjit's numbers only")
    with tempfile.TemporaryDirectory() as folder:
        results = measure(frameworks, cfg, folder)
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
    print("training step idle, waiting for its batch: " + ", ".join(
        f"{name} {numbers['train_idle']:.1%}" for name, numbers in results.items()))
    return results


if __name__ == "__main__":
    main()
