"""Record TF 2.21's answers to graph-supplied strings that look like code or format specs
(print templates, as_string widths, RE2 patterns) as tests/data/string_attacks.json.

    /path/to/tf/python tools/record_string_attacks.py
"""
from __future__ import annotations

import json
import os
import tempfile

import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data",
                   "string_attacks.json")


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - recording what TF raises
        text = str(e)
        cut = text.find("} ")
        return [type(e).__name__, text[cut + 2:].split(" [Op:")[0] if cut >= 0 else text]
    return None


def main() -> None:
    x = tf.constant([1, 2])
    prints = []
    for args in (["a{}b", "T", "{.__class__.__mro__}", "{:>30}"], ["{{}}", "T", "{0}"]):
        with tempfile.TemporaryDirectory() as tmp:  # TF's kernel writes to a file:// stream
            path = os.path.join(tmp, "out.txt")
            tf.print(*[x if a == "T" else a for a in args], output_stream=f"file://{path}")
            with open(path, encoding="utf-8") as f:
                prints.append({"args": args, "out": f.read()})
    formats = [{"template": t, "out": tf.strings.format(t, [x] * t.count("{}")).numpy().decode()}
               for t in ("v={} w={.__class__} {:>5} {{}}", "{:>3000000000}{}")]
    widths = {str(w): _error(lambda w=w: tf.strings.as_string(tf.constant([1.5]), width=w))
              for w in (3000000000, 2**31)}
    fills = {f: _error(lambda f=f: tf.strings.as_string(tf.constant([1.5]), width=4, fill=f))
             for f in ("*", "%")}
    inputs = ["ab", "aa", "12", "a" * 40 + "!"]
    patterns = {}
    for p in ("a(?=b)", "(a)\\1", "a{1001}", "[", "a++", "\\d+|a.", "(a+)+b", "(?i)AB"):
        err = _error(lambda p=p: tf.strings.regex_full_match(inputs, p))
        patterns[p] = err or tf.strings.regex_full_match(inputs, p).numpy().tolist()
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump({"print": prints, "format": formats, "as_string_width": widths,
                   "as_string_fill": fills, "regex_inputs": inputs, "regex": patterns}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
