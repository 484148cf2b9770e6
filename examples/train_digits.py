"""Train a small MLP on scikit-learn's 8x8 digits, TF2 style, with flowjit.

    python examples/train_digits.py [--epochs 15] [--no-jit] [--dump DIR]

The training step is an ordinary TF2 `@tf.function(jit_compile=True)` with a GradientTape and
a Keras Adam optimizer; flowjit traces it on the first call (twice, as TF: that trace creates
Adam's slots and is redone with creation refused), differentiates it into the same graph, and
compiles forward, backward and the Adam update into one XLA executable whose Variables are
updated in place (donated). `--no-jit` runs the same graph on flowjit's graph executor
instead; `--dump DIR` writes every compiler stage of the train step (graph, df dialect,
optimized, StableHLO, HLO, ...) to DIR. Needs scikit-learn (the `examples` extra); the digits
data ship with it, so nothing is downloaded.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np


def load_data(seed=0, test_fraction=0.2):
    from sklearn.datasets import load_digits
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)         # pixel values 0..16 -> [0, 1]
    y = digits.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(x))
    n_test = int(len(x) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    return (x[train], y[train]), (x[test], y[test])


def progress(step, total, loss, width=30):
    done = int(width * step / total)
    bar = "=" * done + (">" if done < width else "") + "." * (width - done - 1)
    sys.stdout.write(f"\r  [{bar[:width]}] {step:3d}/{total} loss {loss:.4f}")
    sys.stdout.flush()


def train(epochs=15, batch_size=32, hidden=128, learning_rate=0.005, jit=True, seed=0,
          verbose=True):
    """Train and return a dict with the final test accuracy, losses and timings."""
    import flowjit as tf

    (x_train, y_train), (x_test, y_test) = load_data(seed)
    tf.random.set_seed(seed)

    def glorot(n_in, n_out):
        limit = np.sqrt(6.0 / (n_in + n_out))
        return tf.Variable(tf.random.uniform([n_in, n_out], -limit, limit))

    w1, b1 = glorot(64, hidden), tf.Variable(tf.zeros([hidden]))
    w2, b2 = glorot(hidden, 10), tf.Variable(tf.zeros([10]))
    params = [w1, b1, w2, b2]
    optimizer = tf.keras.optimizers.Adam(learning_rate)

    def model(x):
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        return tf.matmul(h, w2) + b2

    @tf.function(jit_compile=jit)
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        grads = tape.gradient(loss, params)
        optimizer.apply_gradients(zip(grads, params))
        return loss

    @tf.function(jit_compile=jit)
    def accuracy(x, y):
        predicted = tf.argmax(model(x), axis=1, output_type=tf.int32)
        return tf.reduce_mean(tf.cast(tf.equal(predicted, y), tf.float32))

    rng = np.random.default_rng(seed)
    steps = len(x_train) // batch_size      # drop the remainder: one shape, one compile
    xt, yt = tf.constant(x_test), tf.constant(y_test)
    history = []
    t0 = time.perf_counter()
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(x_train))
        total = 0.0
        for s in range(steps):
            idx = order[s * batch_size:(s + 1) * batch_size]
            loss = float(train_step(tf.constant(x_train[idx]), tf.constant(y_train[idx])))
            total += loss
            if verbose and (s % 5 == 0 or s == steps - 1):
                progress(s + 1, steps, total / (s + 1))
        acc = float(accuracy(xt, yt))
        history.append((total / steps, acc))
        if verbose:
            sys.stdout.write(f"\repoch {epoch:2d}/{epochs}  loss {total / steps:.4f}  "
                             f"test accuracy {acc:.2%}  ({time.perf_counter() - t0:.1f} s)"
                             + " " * 20 + "\n")
    elapsed = time.perf_counter() - t0
    return {"accuracy": history[-1][1], "history": history, "seconds": elapsed,
            "traces": train_step.experimental_get_tracing_count()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.005)
    parser.add_argument("--no-jit", action="store_true",
                        help="run the train step on the graph executor instead of XLA")
    parser.add_argument("--dump", metavar="DIR",
                        help="write every compiler stage of the train step to DIR")
    args = parser.parse_args(argv)
    if args.dump:
        os.environ["FLOWJIT_DUMP_TO"] = args.dump
    mode = "graph executor" if args.no_jit else "XLA (jit_compile=True)"
    print(f"digits: 64-{args.hidden}-10 MLP, Adam({args.lr}), batch {args.batch_size}, {mode}")
    result = train(args.epochs, args.batch_size, args.hidden, args.lr, jit=not args.no_jit)
    print(f"final test accuracy {result['accuracy']:.2%} in {result['seconds']:.1f} s "
          f"(train step traced {result['traces']} time(s))")
    if args.dump:
        print(f"compiler stages written to {args.dump}")
    return result


if __name__ == "__main__":
    main()
