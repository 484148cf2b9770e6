"""Runs test files shipped in the installed Keras wheel against Keras bound to flowjit, and
reports pass/fail/skip per file.

    python -m flowjit.testing.keras_suite [--quick] [FILE ...]

FILEs are paths under `keras/src` (`layers/core/dense_test.py`); without any, the chosen
set `SUITE` runs; `--quick` runs the sample CI runs (`QUICK`). Keras's own skips (tests it
skips for the TensorFlow backend) count as skips; the exit status is 0 when at least
`--min-pass-rate` (default 0.9) of the cases that ran passed.
"""
from __future__ import annotations

import argparse
import collections
import importlib.util
import os
import sys

# Keras's tests of the TF backend's behaviour through its public ops, layers, losses,
# metrics, optimizers, models, trainers and saving (not those importing the Keras repository's
# `conftest`, which the wheel does not ship).
SUITE = (
    "layers/core/dense_test.py", "layers/core/embedding_test.py",
    "layers/core/identity_test.py", "layers/reshaping/cropping2d_test.py",
    "layers/reshaping/reshape_test.py", "layers/regularization/dropout_test.py",
    "layers/pooling/max_pooling_test.py", "layers/pooling/average_pooling_test.py",
    "layers/convolutional/conv_test.py", "layers/normalization/batch_normalization_test.py",
    "layers/normalization/layer_normalization_test.py",
    "layers/activations/activation_test.py", "layers/activations/relu_test.py",
    "layers/attention/multi_head_attention_test.py", "layers/rnn/lstm_test.py",
    "layers/rnn/gru_test.py", "layers/rnn/simple_rnn_test.py",
    "losses/losses_test.py", "metrics/accuracy_metrics_test.py",
    "metrics/regression_metrics_test.py", "metrics/reduction_metrics_test.py",
    "optimizers/sgd_test.py", "optimizers/adam_test.py", "optimizers/rmsprop_test.py",
    "optimizers/schedules/learning_rate_schedule_test.py",
    "models/sequential_test.py", "models/functional_test.py", "models/model_test.py",
    "trainers/trainer_test.py", "callbacks/early_stopping_test.py",
    "saving/saving_api_test.py", "activations/activations_test.py",
)
QUICK = ("optimizers/sgd_test.py", "layers/activations/relu_test.py",
         "layers/normalization/layer_normalization_test.py")


class _PerFile:
    """A pytest plugin counting each test file's outcomes."""

    def __init__(self):
        self.counts = collections.defaultdict(collections.Counter)

    def pytest_runtest_logreport(self, report):
        path = report.nodeid.split("::")[0]
        if report.when == "call" or report.outcome != "passed":
            if report.when == "teardown" and report.outcome == "passed":
                return
            self.counts[path][report.outcome] += 1

    def pytest_collectreport(self, report):
        if report.failed:
            self.counts[report.nodeid.split("::")[0]]["collection error"] += 1


def keras_source_root():
    spec = importlib.util.find_spec("keras")
    if spec is None:
        raise SystemExit("Keras is not installed: pip install 'flowjit[keras]'")
    return os.path.join(os.path.dirname(spec.origin), "src")


def run(files, extra_args=()):
    """Runs `files` (paths under keras/src) in this process; returns {file: Counter}."""
    import pytest

    import flowjit as tf
    tf.keras.config.backend()   # binds Keras to flowjit before pytest imports its tests
    root = keras_source_root()
    plugin = _PerFile()
    # --assert=plain: pytest's assertion rewriting would import the test modules itself,
    # around the loader that binds Keras's modules to flowjit
    pytest.main([os.path.join(root, f) for f in files] +
                ["-q", "-p", "no:cacheprovider", "-c", os.devnull, "--rootdir", root,
                 "--assert=plain", "--continue-on-collection-errors", "-p", "no:warnings",
                 "-W", "ignore::DeprecationWarning", *extra_args], plugins=[plugin])
    return plugin.counts


def report(counts, out=sys.stdout):
    totals = collections.Counter()
    for path in sorted(counts):
        c = counts[path]
        totals.update(c)
        out.write(f"{path:60s} passed {c['passed']:4d}  failed {c['failed']:4d}  "
                  f"skipped {c['skipped']:4d}" +
                  (f"  collection errors {c['collection error']}" if c["collection error"]
                   else "") + "\n")
    ran = totals["passed"] + totals["failed"] + totals["collection error"]
    rate = totals["passed"] / ran if ran else 0.0
    out.write(f"{'total':60s} passed {totals['passed']:4d}  failed {totals['failed']:4d}  "
              f"skipped {totals['skipped']:4d}  pass rate {rate:.1%}\n")
    return rate


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--quick", action="store_true", help="the sample CI runs")
    parser.add_argument("--min-pass-rate", type=float, default=0.9)
    args, extra = parser.parse_known_args(argv)
    files = args.files or (QUICK if args.quick else SUITE)
    rate = report(run(files, extra))
    return 0 if rate >= args.min_pass_rate else 1


if __name__ == "__main__":
    sys.exit(main())
