"""Profiles through jax's profiler (the PJRT client flowjit runs XLA on is jax's), with
flowjit's own phases as named ranges: `phase("trace")`, `phase("pass:cse")`, ... cost one
flag test while no profile is being taken; jax is imported only when one starts."""
from __future__ import annotations

import contextlib
import threading

_lock = threading.Lock()
_logdir: str | None = None


def active() -> bool:
    return _logdir is not None


def start(logdir: str) -> None:
    """Start jax's trace into `logdir` (TensorBoard's plugins/profile layout: an xplane.pb,
    a Chrome trace and a Perfetto trace per run). Raises RuntimeError if one is running."""
    global _logdir
    with _lock:
        if _logdir is not None:
            raise RuntimeError("a profile is already being taken")
        import jax
        jax.profiler.start_trace(logdir, create_perfetto_trace=True)
        _logdir = logdir


def stop() -> str:
    """Stop the trace and write it; returns the log folder. RuntimeError if none runs."""
    global _logdir
    with _lock:
        if _logdir is None:
            raise RuntimeError("no profile is being taken")
        import jax
        jax.profiler.stop_trace()
        logdir, _logdir = _logdir, None
        return logdir


def annotation(name: str, step_num=None, **metadata):
    """A named range in the trace (a step range with `step_num`); a no-op context while no
    profile is being taken."""
    if _logdir is None:
        return contextlib.nullcontext()
    import jax
    if step_num is not None:
        return jax.profiler.StepTraceAnnotation(name, step_num=step_num, **metadata)
    return jax.profiler.TraceAnnotation(name, **metadata)


def phase(name: str):
    """flowjit's own phase `name` as the range `flowjit/<name>`."""
    if _logdir is None:
        return contextlib.nullcontext()
    return annotation(f"flowjit/{name}")
