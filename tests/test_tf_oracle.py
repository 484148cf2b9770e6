"""flowjit against TensorFlow's recorded answers (tests/data/tf_oracle/, written by
tools/record_tf_oracle.py from the cases in tests/oracle/): every case eagerly, in the graph
executor (`@function`) and under XLA (`@function(jit_compile=True)`), values and gradients.

Where a mode differs from TF by design, the difference is allowed here by name (below) and
listed in README's "Differences from TF". FLOWJIT_ORACLE_MODES=eager,graph restricts the
modes (the XLA compiles are most of this file's time).
"""
from __future__ import annotations

import json
import math
import os
import re

import ml_dtypes
import numpy as np
import pytest

import flowjit as tf
from oracle import runner
from oracle.spec import SPECIAL

# Comparison tolerance (rtol, atol) per dtype; integers, bools and strings compare exactly.
TOLERANCE = {"float16": (2e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (2e-6, 1e-6),
             "float64": (1e-12, 1e-12)}
# A complex value compares as its real and imaginary parts, each as the float of its width.
PARTS = {"complex64": "float32", "complex128": "float64"}
# Gradients accumulate more rounding than values.
GRAD_SCALE = 4

# Allowed differences of a mode, by name (README's "Differences from TF" explains each).
# xla-no-runtime-errors: a compiled XLA program cannot raise on a value (integer division by
#   zero, an index out of range, a string that is no number): it returns XLA's defined value.
# graph-trace-errors: inside a tf.function TF (and flowjit) raise an error found while tracing
#   as ValueError (static shapes) or TypeError (dtypes), where eager TF raises
#   InvalidArgumentError.
# tf-flushes-subnormals: TF's CPU kernels read subnormal inputs as zero and flush subnormal
#   results (denormals-are-zero, flush-to-zero); flowjit's NumPy kernels keep them, XLA on
#   CPU flushes. Elements at a subnormal input of the output's shape are not compared, and a
#   subnormal expected value may come out as zero.
# no-kernel-is-a-dtype-error: where TF has no CPU kernel for a dtype (NotFoundError "Could not
#   find device for node"), flowjit refuses the dtype in the op's declaration
#   (InvalidArgumentError, as TF's own dtype checks).
VALUE_ERRORS = ("InvalidArgumentError", "NotFoundError")
ERROR_ALIASES = {"NotFoundError": "InvalidArgumentError"}

# TF's kernels start some messages with their class ("ConcatOp : ", "ScanOp: ") and end
# some with the node ("..., node name: GatherNd"); flowjit names the op its own way.
_KERNEL_PREFIX = re.compile(r"^\w+Op ?: ")
_NODE_SUFFIX = re.compile(r", node name: \w+$")
# Error messages that differ from TF's in wording (the class is still checked): group/case.
MESSAGE_DIFFERS = {
    # TF follows "did not hold element-wise:" with the data; flowjit puts the user's line
    # there and the data on the next line
    "debugging/debugging.assert_negative-1": "flowjit's assert layout",
    "debugging/debugging.assert_non_positive-3": "flowjit's assert layout",
}
# TF's dtype refusal lists its kernels' C++ type names ("Value for attr 'T' of int32 is not in
# the list of allowed values: bfloat16, half, float, double"); flowjit's names the dtype and
# lists the dtypes it takes: only the refused dtype's name is compared.
_DTYPE_REFUSAL = re.compile(r"^Value for attr '\w+' of (\w+) is not in the list")

MODES = tuple(os.environ.get("FLOWJIT_ORACLE_MODES", "eager,graph,xla").split(","))

# Open mismatches the oracle found in cases recorded after their functions were written, each
# with what differs (some differ in one mode only, hence not strict).
KNOWN_MISMATCHES = {
    "signal/signal.dct-19": "an int input: TF's message comes from its float conversion",
    "image/image.hsv_to_rgb-50": "TF defines no gradient for hsv_to_rgb; flowjit's composite has one",
    "image/image.rgb_to_hsv-48": "TF defines no gradient for rgb_to_hsv; flowjit's composite has one",
    "linalg/linalg.slogdet-29": "message text: TF's 'Input matrix must be square.'",
    "linalg/linalg.triangular_solve-38": "message text: TF appends the batch dims",
}


def _load():
    cases = []
    for group, module_cases in runner.case_modules().items():
        path = os.path.join(runner.DATA, f"{group}.json")
        records = json.load(open(path))["cases"] if os.path.exists(path) else {}
        for i, c in enumerate(module_cases):
            cid = runner.case_id(c, i)
            for mode in c["modes"]:
                if mode in MODES:
                    why = KNOWN_MISMATCHES.get(f"{group}/{cid}")
                    marks = [pytest.mark.xfail(strict=False, reason=why)] if why else []
                    cases.append(pytest.param(c, records.get(cid), mode, f"{group}/{cid}",
                                              id=f"{group}/{cid}/{mode}", marks=marks))
    return cases


def _tensor_specs(value, out):
    if runner.is_tensor_spec(value):
        out.append(value)
    elif isinstance(value, list):
        for v in value:
            _tensor_specs(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            _tensor_specs(v, out)
    return out


def _substitute(value, tensors):
    """The case argument with each tensor spec replaced by the next of `tensors`."""
    if runner.is_tensor_spec(value):
        return next(tensors)
    if isinstance(value, list):
        return [_substitute(v, tensors) for v in value]
    if isinstance(value, dict):
        return runner.callable_arg(tf, {k: _substitute(v, tensors) for k, v in value.items()})
    return value


def _body(c):
    """fn(*input tensors) -> (outputs, gradients) for the case."""
    fn = runner.resolve(tf, c["api"])

    def body(*inputs):
        it = iter(inputs)
        args = [_substitute(a, it) for a in c["args"]]
        kwargs = {k: _substitute(v, it) for k, v in c["kwargs"].items()}
        with tf.GradientTape(persistent=True) as tape:
            for i in c["grad"]:
                tape.watch(args[i])
            outputs = runner.flat_outputs(fn(*args, **kwargs))
            target = runner.weighted_sum(tf, outputs) if c["grad"] else None
        grads = [tape.gradient(target, args[i]) if target is not None else None
                 for i in c["grad"]]
        return outputs, grads
    return body


def _run(c, mode):
    inputs = [runner.make_tensor(tf, s) for s in
              _tensor_specs(c["args"], []) + _tensor_specs(c["kwargs"], [])]
    body = _body(c)
    if mode != "eager":
        body = tf.function(body, jit_compile=mode == "xla")
    return body(*inputs)


def _decode(values):
    return [SPECIAL.get(v, v) if isinstance(v, str) else v for v in values]


def _subnormal_inputs(c, shape):
    """A mask of the positions where a float input of `shape` is subnormal, or None."""
    mask = None
    for spec in _tensor_specs(c["args"], []) + _tensor_specs(c["kwargs"], []):
        if spec["dtype"] not in TOLERANCE:
            continue
        a = np.array(_decode_nested(spec["tensor"]), np.float64)
        if list(a.shape) != shape:
            continue
        tiny = _tiny(spec["dtype"])
        sub = (a != 0) & (np.abs(a) < tiny)
        mask = sub if mask is None else mask | sub
    return None if mask is None else mask.reshape(-1)


def _decode_nested(values):
    if isinstance(values, list):
        return [_decode_nested(v) for v in values]
    return SPECIAL.get(values, values) if isinstance(values, str) else values


def _tiny(dtype_name):
    return float(np.finfo(ml_dtypes.bfloat16 if dtype_name == "bfloat16" else dtype_name).tiny)


def _check(got, want, mode, what, tol, skip=None):
    assert got is not None, f"{what}: flowjit gives None, TF {want['dtype']}{want['shape']}"
    got = got if isinstance(got, tf.Tensor) else tf.convert_to_tensor(got)
    assert got.dtype.name == want["dtype"], f"{what}: dtype {got.dtype.name} != TF's " \
                                             f"{want['dtype']}"
    assert list(got.shape) == want["shape"], f"{what}: shape {list(got.shape)} != TF's " \
                                              f"{want['shape']}"
    a = np.asarray(got.numpy()).reshape(-1)   # a scalar string is bare bytes
    if want["dtype"] in PARTS:
        part = dict(want, dtype=PARTS[want["dtype"]])
        for k, name in enumerate(("real", "imaginary")):
            _check_floats(a.real if k == 0 else a.imag, dict(
                part, values=[v[k] for v in want["values"]]), f"{what} ({name} parts)", tol,
                skip)
        return
    if want["dtype"] == "string":
        assert [v.decode("utf-8", "backslashreplace") for v in a] == want["values"], what
        return
    if want["dtype"] not in TOLERANCE:
        assert a.tolist() == want["values"], f"{what}: {a.tolist()} != TF's {want['values']}"
        return
    _check_floats(a, want, what, tol, skip)


def _check_floats(a, want, what, tol, skip):
    expected = np.array(_decode(want["values"]), np.float64)
    actual = a.astype(np.float64)
    rtol, atol = tol or TOLERANCE[want["dtype"]]
    # tf-flushes-subnormals
    flushed = (np.abs(expected) < _tiny(want["dtype"])) & (actual == 0)
    if skip is not None:
        flushed |= skip
    expected = np.where(flushed, actual, expected)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True,
                               err_msg=what)
    zeros = (expected == 0) & (actual == 0)
    assert (np.signbit(actual[zeros]) == np.signbit(expected[zeros])).all(), \
        f"{what}: signs of zeros {actual.tolist()} != TF's {want['values']}"


@pytest.mark.parametrize("c,record,mode,cid", _load())
def test_matches_tf(c, record, mode, cid):
    assert record is not None, "not recorded: run tools/record_tf_oracle.py"
    assert record["fingerprint"] == runner.fingerprint(c), \
        "the case changed since it was recorded: run tools/record_tf_oracle.py"
    if "error" in record:
        try:
            _run(c, mode)
        except Exception as e:   # noqa: BLE001 - the class is what is compared
            name = type(e).__name__
            allowed = {record["error"], ERROR_ALIASES.get(record["error"])}
            if mode != "eager" and record["error"] in VALUE_ERRORS:
                allowed |= {"ValueError", "TypeError"}    # graph-trace-errors
            assert name in allowed, f"flowjit raises {name}: {e}; TF {record['error']}: " \
                                    f"{record['message']}"
            if mode == "eager" and name == record["error"] and cid not in MESSAGE_DIFFERS:
                core = _NODE_SUFFIX.sub("", _KERNEL_PREFIX.sub("", record["message"]))
                refused = _DTYPE_REFUSAL.match(core)
                core = refused.group(1) if refused else core
                assert core in str(e), f"message {str(e)!r} lacks TF's {core!r}"
            return
        if mode == "xla" and record["error"] in VALUE_ERRORS:
            return   # xla-no-runtime-errors
        pytest.fail(f"flowjit returns; TF raises {record['error']}: {record['message']}")
    outputs, grads = _run(c, mode)
    outputs = runner.flat_outputs(outputs)
    assert len(outputs) == len(record["outputs"]), "number of outputs"
    for i, (got, want) in enumerate(zip(outputs, record["outputs"])):
        if want is None:   # TF returns None (an assert that held)
            assert got is None, f"output {i}: flowjit returns {got!r}, TF None"
            continue
        _check(got, want, mode, f"output {i}", c["tol"], _subnormal_inputs(c, want["shape"]))
    for arg, got, want in zip(c["grad"], grads, record.get("grads", [])):
        if want is None:
            assert got is None, f"gradient of argument {arg}: flowjit gives a tensor, TF None"
        else:
            tol = c["tol"] or TOLERANCE.get(want["dtype"], (0, 0))
            _check(got, want, mode, f"gradient of argument {arg}",
                   tuple(t * GRAD_SCALE for t in tol), _subnormal_inputs(c, want["shape"]))
