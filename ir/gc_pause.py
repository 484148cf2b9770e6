"""Pausing Python's cyclic garbage collector while a compile phase builds its objects.

Tracing, the specializer, the importer and the passes allocate hundreds of thousands of small
objects (nodes, xDSL operations, attributes) that all live until the compile ends. Every
full collection walks the whole heap, so a 10k-op import spent most of its time in
generation-2 collections. Nested and concurrent pauses pause once; the collector's state
from before the outermost pause is restored after it.
"""
from __future__ import annotations

import contextlib
import gc
import threading

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextlib.contextmanager
def gc_paused():
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
