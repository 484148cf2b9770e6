"""Retracing that explains itself: TF's frequent-tracing warning, why a retrace happened, and
strict retracing.

TF keeps call statistics per code object (so a `tf.function` re-created in a loop counts
with its predecessors): a list of runs, each a traced call followed by the untraced calls
after it, trimmed so that at most `MAX_CALL_HISTORY` calls follow the oldest run's first one.
A traced call warns when that list holds `THRESHOLD` runs, at most `MAX_WARNINGS` times per
code object (recorded from TF 2.21: tools/record_tf_retrace_warning.py). flowjit appends its
own account to TF's text: the argument that changed against the nearest cached signature, and
the `input_signature` or `reduce_retracing` that would have avoided the trace.

Strict retracing (`function(..., strict_retracing=True)`, or process-wide
`config.experimental.set_strict_retracing(True)` / `FLOWJIT_STRICT_RETRACING=1`) raises
`RetracingError` with that account instead of tracing a Function a second time.
"""
from __future__ import annotations

import functools
import os
import threading
import weakref

from . import trace_type

MAX_CALL_HISTORY = 10
THRESHOLD = 5
MAX_WARNINGS = 2

_TF_TEXT = (
    "{traced} out of the last {calls} calls to {function} triggered tf.function retracing. "
    "Tracing is expensive and the excessive number of tracings could be due to (1) creating "
    "@tf.function repeatedly in a loop, (2) passing tensors with different shapes, (3) passing "
    "Python objects instead of tensors. For (1), please define your @tf.function outside of "
    "the loop. For (2), @tf.function has reduce_retracing=True option that can avoid "
    "unnecessary retracing. For (3), please refer to "
    "https://www.tensorflow.org/guide/function#controlling_retracing and "
    "https://www.tensorflow.org/api_docs/python/tf/function for  more details.")

_STRICT = [os.environ.get("FLOWJIT_STRICT_RETRACING") == "1"]


class RetracingError(RuntimeError):
    """A Function under strict retracing was called with arguments its traces do not accept."""


def set_strict_retracing(enabled: bool):
    """Make every Function without its own `strict_retracing` raise instead of retracing."""
    _STRICT[0] = bool(enabled)


def get_strict_retracing() -> bool:
    return _STRICT[0]


class CallStats:
    """TF's frequent-tracing detector for one code object. A Function counts its untraced
    calls into `untraced` (one increment on the cached path); a trace folds them in."""

    __slots__ = ("untraced", "_runs", "_calls", "_warnings", "_lock")

    def __init__(self):
        self.untraced = 0
        self._runs = []        # calls per run: one traced call plus the untraced ones after it
        self._calls = 0
        self._warnings = 0
        self._lock = threading.Lock()

    def traced(self):
        """Record a traced call; `(traced, calls)` when TF would warn now, else None."""
        with self._lock:
            if self.untraced:
                if not self._runs:       # untraced calls before any traced one (TF's [0])
                    self._runs.append(0)
                self._runs[-1] += self.untraced
                self._calls += self.untraced
                self.untraced = 0
            self._calls += 1
            self._runs.append(1)
            while self._runs and self._calls - self._runs[0] > MAX_CALL_HISTORY:
                self._calls -= self._runs.pop(0)
            if self._warnings >= MAX_WARNINGS or len(self._runs) < THRESHOLD:
                return None
            self._warnings += 1
            return len(self._runs), self._calls


_STATS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_STATS_LOCK = threading.Lock()


def stats_for(python_function) -> CallStats:
    """The call statistics shared by every Function of `python_function`'s code (TF's key:
    wrappers and bound methods are unwrapped to their function)."""
    target = python_function
    while True:
        if isinstance(target, functools.partial):
            target = target.func
        elif hasattr(target, "__wrapped__"):
            target = target.__wrapped__
        else:
            break
    target = getattr(target, "__func__", target)
    key = getattr(target, "__code__", python_function)
    with _STATS_LOCK:
        try:
            stats = _STATS.get(key)
        except TypeError:        # not weakly referable: statistics of its own
            return CallStats()
        if stats is None:
            stats = _STATS[key] = CallStats()
        return stats


def warning_text(function_repr: str, traced: int, calls: int, explanation) -> str:
    text = _TF_TEXT.format(traced=traced, calls=calls, function=function_repr)
    return text if explanation is None else f"{text} Why the latest call retraced: {explanation}"


def _argument(path: str, arg_names) -> str:
    """`[0]['a']` → `'x'['a']`: the parameter's name for a path into the argument tuple."""
    if not path.startswith("["):
        return path or "the arguments"
    index, _, rest = path[1:].partition("]")
    try:
        return repr(arg_names[int(index)]) + rest
    except (ValueError, IndexError):
        return path


def _advice(nearest, key, changed) -> str:
    """What would have avoided the trace."""
    if changed[0] == trace_type.LITERAL:
        return ("Python values are part of the trace type (each new value traces); pass it "
                "as a tensor to share one trace")
    if changed[0] in ("obj", "V"):
        return "objects are keyed by identity; pass the same object or its tensors instead"
    relaxed = trace_type.relax(nearest, key)
    if relaxed is None:
        return "no signature accepts both; this trace is needed"
    parts = relaxed[1] if trace_type.is_container(relaxed) else ()
    if parts and all(p[0] == trace_type.TENSOR for p in parts):
        specs = ", ".join(trace_type.describe(p) for p in parts)
        return (f"input_signature=[{specs}] or reduce_retracing=True would trace once for "
                f"both")
    return f"reduce_retracing=True would trace once for {trace_type.describe(relaxed)}"


def explain(cached_keys, key, arg_names):
    """Why a call of trace type `key` traced, against the nearest of `cached_keys`; None when
    nothing was cached (a first trace needs no reason)."""
    if not cached_keys:
        return None
    nearest = min(reversed(cached_keys), key=lambda k: trace_type.count_differences(k, key))
    difference = trace_type.first_difference(nearest, key)
    if difference is None:
        return None
    path, old, new = difference
    against = "the cached signature" if len(cached_keys) == 1 else \
        f"the nearest of {len(cached_keys)} cached signatures"
    return (f"argument {_argument(path, arg_names)} changed from {trace_type.describe(old)} "
            f"to {trace_type.describe(new)} (against {against}); "
            f"{_advice(nearest, key, new)}.")
