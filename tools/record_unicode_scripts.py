"""Write frontend/ops/unicode_script_table.py: the ICU script code of every Unicode code point
as TF 2.21's `tf.strings.unicode_script` (its bundled ICU) gives it, compressed into runs.

Run with a Python that has TensorFlow: `python tools/record_unicode_scripts.py`."""
import os

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "frontend", "ops", "unicode_script_table.py")


def _wrapped(name, values):
    lines, line = [], "    "
    for v in values:
        item = f"{v},"
        if len(line) + len(item) + 1 > 99:
            lines.append(line.rstrip())
            line = "    "
        line += item + " "
    lines.append(line.rstrip())
    return f"{name} = (\n" + "\n".join(lines) + "\n)\n"


if __name__ == "__main__":
    points = np.arange(0, 0x110000, dtype=np.int32)
    scripts = tf.strings.unicode_script(points).numpy()
    starts = np.concatenate([[0], np.flatnonzero(np.diff(scripts)) + 1])
    with open(OUT, "w") as f:
        f.write(f'"""The ICU script code (UScriptCode) of each Unicode code point, as runs: the '
                f'run starting\nat code point RUN_STARTS[i] has script RUN_SCRIPTS[i]. Written by '
                f'tools/record_unicode_scripts.py\nfrom TF {tf.__version__}\'s '
                f'tf.strings.unicode_script (the ICU it bundles)."""\n\n')
        f.write(_wrapped("RUN_STARTS", starts.tolist()))
        f.write("\n")
        f.write(_wrapped("RUN_SCRIPTS", scripts[starts].tolist()))
    print("wrote", OUT, len(starts), "runs")
