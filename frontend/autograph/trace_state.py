"""The state of AutoGraph while a converted function is traced, read by the converter, the
runtime operators, staging and lint: the outermost converted call's `TraceContext` (per
thread) and whether a loop body is being probed (traced into a scratch graph)."""
from __future__ import annotations

import threading

_STATE = threading.local()
_PROBING = [0]   # nesting depth of probe traces (their side effects are not the user's)


class TraceContext:
    """Per outermost converted call (one trace): the optional features its `tf.function`
    enabled, the lint warnings already given."""

    def __init__(self, features: frozenset):
        self.features = features
        self.warned: set = set()


def context():
    return getattr(_STATE, "ctx", None)


def enter(features: frozenset) -> bool:
    """Start a trace context unless one is active; True when this call started it."""
    if getattr(_STATE, "ctx", None) is not None:
        return False
    _STATE.ctx = TraceContext(features)
    return True


def leave():
    _STATE.ctx = None


def enabled(feature) -> bool:
    """Whether the function being traced enabled an optional `Feature`."""
    ctx = getattr(_STATE, "ctx", None)
    return ctx is not None and feature in ctx.features


def probing() -> bool:
    return _PROBING[0] > 0


def probe_started():
    _PROBING[0] += 1


def probe_ended():
    _PROBING[0] -= 1
