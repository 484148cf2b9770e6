"""The bad-input sweep: every op sample (tests/op_samples.py, so a new op joins by adding its
sample) gets each of its tensor arguments replaced by a bad value, in eager mode and traced;
what must happen is TF 2.21's rule for that kind of value:

- None, a ragged nested list: always an error (TF: ValueError / TypeError /
  InvalidArgumentError), never a result (None used to become NaN);
- another rank or dtype, a string (a tf.string tensor: `tf.identity("abc")` is valid): a
  result, or a clear error;
"clear" = one of TF's exception classes (ValueError, TypeError, NotImplementedError or a
tf.errors.OpError) whose message names the op, or that carries the user's line (the "in user
code:" block, or a note Python prints under the traceback: TF's own text stays unchanged);
never another Python exception, never an abort. Calls refused eagerly are also traced under XLA (refused at trace
time, so no compile): the same rule applies there.
"""
from __future__ import annotations

import os
import traceback

import numpy as np
import pytest

import flowjit as tf
from flowjit.errors import OpError
from flowjit.extend import api_names
from op_samples import SAMPLES

CLEAR = (ValueError, TypeError, NotImplementedError, OpError)
MUST_RAISE = {
    "none": lambda a: None,
    "ragged": lambda a: [[1.0], [1.0, 2.0]],
}
MAY_PASS = {
    "string": lambda a: "abc",
    "rank+2": lambda a: np.asarray(a)[None, None],
    "scalar": lambda a: np.asarray(a).reshape(-1)[:1].reshape(()) if np.size(a) else
    np.zeros((), np.asarray(a).dtype),
    "bool": lambda a: np.asarray(a).astype(bool),
    "float64": lambda a: np.asarray(a).astype(np.float64),
    "int8": lambda a: np.nan_to_num(np.asarray(a, np.float64)).astype(np.int8),
}
# Ops whose TF API takes any Python object for these arguments (tf.print prints None).
ACCEPTS_ANY = {"print"}
API = api_names()
FIRST = [ss[0] for _, ss in sorted(SAMPLES.items()) if API.get(ss[0].op)
         and ss[0].reset is None and ss[0].deterministic and ss[0].op not in ACCEPTS_ANY]
TESTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _in_sample_code(e) -> bool:
    """The sample's own Python (`x > 0.5`, `x[1:]` on a raw string) raised, before flowjit."""
    return traceback.extract_tb(e.__traceback__)[-1].filename.startswith(TESTS_DIR)


def _names(sample):
    return {sample.op, API[sample.op].rsplit(".", 1)[-1], "op_samples.py", "test_bad_inputs.py"}


def _call(sample, mode, args):
    fn = sample.fn if mode == "eager" else tf.function(sample.fn, jit_compile=mode == "xla")
    try:
        fn(*[a if a is None or isinstance(a, (str, list)) else tf.constant(a) for a in args])
    except CLEAR as e:
        return "raised", e
    return "passed", None


def sweep(sample):
    """Every (role, argument, mode) of one sample: a list of (verdict, where) pairs."""
    out = []
    good = list(sample.args())
    for table, must_raise in ((MUST_RAISE, True), (MAY_PASS, False)):
        for role, make in table.items():
            for i in range(len(good)):
                args = list(good)
                try:
                    args[i] = make(good[i])
                except (TypeError, ValueError):  # no such variant (a string as float64)
                    continue
                for mode in ("eager", "graph", "xla"):
                    where = f"{sample.id} arg {i} {role} {mode}"
                    try:
                        what, err = _call(sample, mode, args)
                    except Exception as e:  # noqa: BLE001 - not one of TF's classes
                        out.append(("unclear", f"{where}: {type(e).__name__}: {e}"))
                        break
                    if what == "raised" and _in_sample_code(err):
                        break
                    if what == "passed":
                        out.append(("silent" if must_raise else "accepted", where))
                        if mode == "eager" and not must_raise:
                            break   # numbers of accepted inputs are the fuzzer's job
                        continue
                    msg = str(err)
                    shown = "\n".join([msg, *getattr(err, "__notes__", ())])
                    named = any(n in shown for n in _names(sample))
                    out.append(("clear" if named else "unclear",
                                f"{where}: {type(err).__name__}: {msg[:200]}"))
    return out


@pytest.mark.parametrize("sample", FIRST, ids=[s.id for s in FIRST])
def test_bad_inputs_get_tf_errors(sample):
    verdicts = sweep(sample)
    bad = [w for v, w in verdicts if v in ("silent", "unclear")]
    assert not bad, "\n".join(bad[:10])
