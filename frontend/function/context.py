"""The per-thread state of the frontend (TF's eager context): what decides whether an op
runs eagerly, is recorded into a graph, or is seen by a GradientTape.

Each thread has its own graph stack, tape stack, Variable name scopes and hooks, so while one
thread traces a `tf.function` another thread's ops still run eagerly. Every module reads the
state through `context()`; hot paths keep the returned object (one `threading.local`, whose
attributes differ per thread) and read its fields on every op.

The compile lock is process-wide: concurrent first calls of a signature must trace and
compile once.
"""
from __future__ import annotations

import threading

# Tracing, planning and compiling (cache misses only) hold one process-wide lock. Cache hits
# take no lock; variables have their own (runtime/resources.py).
COMPILE_LOCK = threading.RLock()


class Context(threading.local):
    """One thread's state; fields are set by the modules named in their comments."""

    def __init__(self):
        self.graphs: list = []        # FuncGraphs being built, innermost last; None: init_scope
        self.tapes: list = []         # recording GradientTapes, outermost first
        self.name_scopes: list = []   # the enclosing name_scopes (Variable names start with them)
        # Set while a graph is built (func_graph.py): ops and Variable reads and updates
        # become graph nodes.
        self.graph_hook = None        # (opdef, inputs, attrs) -> outputs
        self.read_hook = None         # (variable) -> tensor
        self.assign_hook = None       # (variable, method, value, read_value)
        # The variable creator scope (tracing.py, distribute.py): (initial_value, dtype) ->
        # the new Variable's value.
        self.create_hook = None
        # Set while a GradientTape records (gradients/tape.py).
        self.tape_hook = None         # (opdef, inputs, attrs, out)
        self.watch_hook = None        # (variable, read tensor)
        # Set while a dataset function is traced or its datasets rebuilt (data/
        # dataset_functions.py): a function traced there may read a tensor of that other
        # trace; this gives its value (a placeholder, then each element's), else None.
        self.foreign_capture = None   # (symbolic tensor of another graph) -> eager tensor


_CONTEXT = Context()

# What forward code asks of gradient code while a tape records, registered by
# frontend/gradients/control_flow.py when imported (forward modules never import gradient
# code): "record_branches" (a cond/case node), "tape_tracks" and "differentiable_while" (a
# while loop a tape tracks), "call_under_tape" (a traced function called under an eager tape).
GRADIENT_HOOKS: dict = {}


def context() -> Context:
    """This thread's context."""
    return _CONTEXT
