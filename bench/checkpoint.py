"""Save and restore time of a 100 MB checkpoint (25 float32 variables of 4 MB).

    python bench/checkpoint.py [--mb 100] [--repeat 3]

Save is `Checkpoint.write` (atomic and durable: temp file, fsync, rename, folder fsync);
restore is `Checkpoint.restore` into existing variables. Both include the integrity work
(CRC32C of every tensor and of the header, written on save, verified on restore, and the
header's structural checks); the `crc32c` row is that checksum alone over the same bytes, so
the cost of the checks can be read off. Times are the best of `--repeat` runs, wall clock.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import table  # noqa: E402

import flowjit as tf  # noqa: E402


def _best(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    count = 25
    size = args.mb * (1 << 20) // 4 // count
    rng = np.random.default_rng(0)
    module = tf.Module()
    module.vs = [tf.Variable(rng.standard_normal(size, dtype=np.float32)) for _ in range(count)]
    folder = tempfile.mkdtemp()
    try:
        prefix = os.path.join(folder, "big")
        ck = tf.train.Checkpoint(model=module)
        save_s = _best(lambda: ck.write(prefix), args.repeat)
        restore_s = _best(lambda: ck.restore(prefix), args.repeat)
        try:
            from flowjit.runtime.safetensors import crc32c
            arrays = [v.numpy() for v in module.vs]
            crc_s = _best(lambda: [crc32c(a) for a in arrays], args.repeat)
        except ImportError:   # a flowjit from before checksums
            crc_s = float("nan")
        size_mb = os.path.getsize(prefix + ".safetensors") / (1 << 20)
    finally:
        shutil.rmtree(folder)
    rows = [["save (write)", f"{save_s:.3f}", f"{size_mb / save_s:.0f}"],
            ["restore", f"{restore_s:.3f}", f"{size_mb / restore_s:.0f}"],
            ["crc32c alone", f"{crc_s:.3f}", f"{size_mb / crc_s:.0f}"]]
    print(f"checkpoint of {size_mb:.0f} MB ({count} variables)")
    print(table(rows, ["step", "seconds", "MB/s"]))


if __name__ == "__main__":
    main()
