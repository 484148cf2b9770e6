"""`GradientTape`: reverse-mode differentiation of whatever ran while it recorded.

Recording. While a tape is active, `dispatch.apply` calls its thread's `context().tape_hook`
after every op (one check on the eager hot path when no tape is active); tapes are per thread. A tape keeps an entry
(op, inputs, attrs, outputs) for each differentiable op with a *tracked* input: a watched
tensor, a watched Variable, or an output of an entry it already kept. Entries hold the tensors
themselves, so the `id`s the tape keys on stay valid for the tape's life. Variable reads (eager
and traced) notify the tapes through `context().watch_hook`: a read of a watched (or, with
`watch_accessed_variables`, any trainable) Variable becomes an entry from the Variable to the
read tensor, so a Variable's gradient is the sum over its reads.

A tape records the ops of the graph it was entered in (None: eager) only. Nested control-flow
graphs are recorded as one entry for their `cond`/`case`/`while` node (gradients/control_flow.py)
and a traced function's graph is not recorded by an eager tape.

Gradients. Entries are appended in execution order, so walking them backwards visits each entry
after every consumer of its outputs: the gradients of its outputs are complete when it is
reached. Registry ops use `GRADIENTS[op]` (written with public ops, so the same code builds
eager tensors or graph nodes); custom entries (control flow, `custom_gradient`, variable reads)
carry their own function `grad_fn(needed, *output_grads)`. The gradient computation is itself
recorded by the other active tapes, which gives higher derivatives with nested tapes.
"""
from __future__ import annotations

import contextlib
import enum
import functools
import inspect

import numpy as np

from ...ir import errors
from ..eager import dispatch
from ..function import func_graph
from .. import nest
from ..state import variables
from ..function.context import context
from ..eager.tensor import Tensor
from ..composite.indexed_slices import IndexedSlices
from . import GRADIENTS


class UnconnectedGradients(enum.Enum):
    """What `gradient` returns for a source the target does not depend on."""
    NONE = "none"
    ZERO = "zero"


# This thread's recording tapes (context.py), outermost first.
_CTX = context()


def _update_hooks():
    ctx = _CTX
    on = bool(ctx.tapes)
    ctx.tape_hook = _record_op if on else None
    ctx.watch_hook = _variable_read if on else None


_current_graph = func_graph.current


def _within(g, root) -> bool:
    """True if graph `g` is `root` or nested (control flow) inside it."""
    if root is None:
        return g is None
    while g is not None:
        if g is root:
            return True
        g = g.outer
    return False


def _is_variable(x) -> bool:
    return isinstance(x, variables.Variable)


def _as_source(x):
    """An object that acts as a resource variable (TF's mark, which Keras 3's variables carry)
    stands for the `tf.Variable` it wraps, whose handle TF differentiates."""
    if not _is_variable(x) and getattr(x, "_should_act_as_resource_variable", False):
        inner = getattr(x, "value", None)
        if _is_variable(inner):
            return inner
    return x


def _differentiable(x) -> bool:
    dt = getattr(x, "dtype", None)
    return dt is not None and dt.is_floating


class _Entry:
    """One recorded op. It is also the `op` a registry gradient function receives."""

    __slots__ = ("opdef", "inputs", "outputs", "attrs", "grad_fn")

    def __init__(self, opdef, inputs, outputs, attrs, grad_fn=None):
        self.opdef = opdef
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs
        self.grad_fn = grad_fn

    @property
    def type(self) -> str:
        return self.opdef.name if self.opdef is not None else "custom"

    name = type

    def get_attr(self, name):
        return self.attrs[name]

    def __repr__(self):
        return f"<tape entry {self.type}: {len(self.inputs)} in, {len(self.outputs)} out>"


# --- recording hooks ------------------------------------------------------------------------
def _record_op(opdef, inputs, attrs, out):
    """`context().tape_hook`: keep the op on every tape that tracks one of its inputs."""
    if not opdef.differentiable:
        return
    g = _current_graph()
    entry = None
    for tape in _CTX.tapes:
        if tape._graph is not g:
            continue
        tracked = tape._tracked
        for t in inputs:
            if id(t) in tracked:
                break
        else:
            continue
        if entry is None:
            entry = _Entry(opdef, tuple(inputs), out if isinstance(out, tuple) else (out,),
                           attrs)
        tape._entries.append(entry)
        for o in entry.outputs:
            tracked[id(o)] = o


def _read_grad(needed, grad):
    return [grad]


def _variable_read(var, t):
    """`context().watch_hook`: a Variable was read as tensor `t`."""
    g = _current_graph()
    for tape in _CTX.tapes:
        same = tape._graph is g
        if not same and not _within(g, tape._graph):
            continue
        if id(var) not in tape._tracked:
            if not (tape._watch_accessed and var.trainable):
                continue
            tape._watch_variable(var)
        if same:
            tape._entries.append(_Entry(None, (var,), (t,), {}, _read_grad))
            tape._tracked[id(t)] = t


def should_record(inputs) -> bool:
    """True if an active tape in the current graph tracks one of `inputs` (tensors or
    Variables): a builder of a composite node (cond, while) then records it."""
    if not _CTX.tapes:
        return False
    g = _current_graph()
    for tape in _CTX.tapes:
        if tape._graph is g and any(id(x) in tape._tracked for x in inputs):
            return True
    return False


def record_custom(inputs, outputs, grad_fn):
    """Record a composite op: `grad_fn(needed, *output_grads)` returns one gradient (or None)
    per input; `needed[i]` says whether input i needs one. Inputs may be Variables."""
    if not _CTX.tapes:
        return
    g = _current_graph()
    entry = None
    for tape in _CTX.tapes:
        if tape._graph is not g or not any(id(x) in tape._tracked for x in inputs):
            continue
        if entry is None:
            entry = _Entry(None, tuple(inputs), tuple(outputs), {}, grad_fn)
        tape._entries.append(entry)
        for o in entry.outputs:
            tape._tracked[id(o)] = o


@contextlib.contextmanager
def _all_paused():
    """No tape records inside (custom_gradient's forward function)."""
    saved = list(_CTX.tapes)
    _CTX.tapes.clear()
    _update_hooks()
    try:
        yield
    finally:
        _CTX.tapes[:] = saved
        _update_hooks()


# --- the tape -------------------------------------------------------------------------------
class GradientTape:
    """TF's `tf.GradientTape(persistent=False, watch_accessed_variables=True)`."""

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._entries: list = []
        self._tracked: dict = {}        # id -> tensor or Variable a gradient can flow to
        self._watched_vars: dict = {}   # id -> Variable
        self._recording = False
        self._used = False
        self._graph = None

    # --- context --------------------------------------------------------------------------
    def __enter__(self):
        self._push()
        return self

    def __exit__(self, *exc):
        if self._recording:
            self._pop()
        return False

    def _push(self):
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter "
                             "an already-active tape.")
        self._graph = _current_graph()
        _CTX.tapes.append(self)
        self._recording = True
        _update_hooks()

    def _pop(self):
        _CTX.tapes.remove(self)
        self._recording = False
        _update_hooks()

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops inside are not recorded by this tape."""
        if not self._recording:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        self._pop()
        try:
            yield
        finally:
            _CTX.tapes.append(self)
            self._recording = True
            _update_hooks()

    def reset(self):
        """Forget everything recorded, as if the tape were exited and entered anew."""
        recording = self._recording
        if recording:
            self._pop()
        self._entries = []
        self._tracked = {}
        self._watched_vars = {}
        self._used = False
        if recording:
            self._push()

    # --- watching -------------------------------------------------------------------------
    def watch(self, tensor):
        """Track tensors and Variables (any nest of them) so gradients can flow to them."""
        for t in map(_as_source, nest.flatten(tensor)):
            if _is_variable(t):
                self._watch_variable(t)
            elif isinstance(t, Tensor):
                self._tracked[id(t)] = t
            else:
                raise errors.noted(ValueError(
                    f"Passed in object {t!r} of type {type(t).__name__!r}, not tf.Tensor or "
                    f"tf.Variable or ExtensionType."))

    def _watch_variable(self, var):
        self._tracked[id(var)] = var
        self._watched_vars[id(var)] = var

    def watched_variables(self) -> tuple:
        """The Variables this tape watches (by creation order, as TF)."""
        return tuple(sorted(self._watched_vars.values(), key=lambda v: v._uid))

    # --- gradients ------------------------------------------------------------------------
    def _check_usable(self):
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               "set of gradients (or jacobians)")
        if self._recording and not self._persistent:
            # A non-persistent tape stops recording for good once asked for gradients (TF);
            # a persistent one goes on recording, so it also sees its gradient computation.
            self._pop()

    def _release(self):
        if not self._persistent:
            self._used = True
            self._entries = []
            self._tracked = {}

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """d(sum of targets)/d(source) for each source, in the structure of `sources`."""
        self._check_usable()
        unconnected = UnconnectedGradients(unconnected_gradients)
        flat_targets = [_as_target(t) for t in nest.flatten(target)]
        flat_sources = [_as_source(s) for s in nest.flatten(sources)]
        for s in flat_sources:
            if not (_is_variable(s) or isinstance(s, Tensor)):
                raise TypeError(f"GradientTape.gradient: sources must be tensors or Variables, "
                                f"got {s!r} of type {type(s).__name__}")
        for t in flat_targets + flat_sources:
            if t.dtype.is_complex:
                raise errors.UnimplementedError(
                    None, None, f"GradientTape.gradient: {t!r} is complex; flowjit does not "
                    f"differentiate complex tensors yet (TF does)")
        ogs = None
        if output_gradients is not None:
            ogs = nest.flatten(output_gradients)
            if len(ogs) != len(flat_targets):
                raise ValueError(f"GradientTape.gradient: {len(ogs)} output_gradients for "
                                 f"{len(flat_targets)} targets")
        try:
            grads = _backward(self, flat_targets, flat_sources, ogs, unconnected)
        finally:
            self._release()
        return nest.pack_sequence_as(sources, grads)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """d target[i...] / d source[j...], shaped target.shape + source.shape per source.
        Computed as one gradient per target element (the target's shape must be static)."""
        self._check_usable()
        unconnected = UnconnectedGradients(unconnected_gradients)
        t = _as_target(target)
        flat_sources = nest.flatten(sources)
        shape = _static_shape(t, "jacobian target")
        n = int(np.prod(shape, dtype=np.int64))
        try:
            rows = []
            for i in range(n):
                seed = np.zeros(n, t.dtype.np)
                seed[i] = 1
                seed = dispatch.convert_to_tensor(seed.reshape(shape))
                rows.append(_backward(self, [t], flat_sources, [seed], unconnected))
        finally:
            self._release()
        from ..ops import array
        out = []
        for j, s in enumerate(flat_sources):
            col = [r[j] for r in rows]
            sshape = _shape_list(s)
            if n and all(g is None for g in col):
                out.append(None)
                continue
            col = [g if g is not None else _zeros_for(s) for g in col]
            if n == 0:
                out.append(array.zeros(list(shape) + _static_shape(s, "jacobian source"),
                                       s.dtype))
                continue
            out.append(array.reshape(array.stack(col), list(shape) + sshape))
        return nest.pack_sequence_as(sources, out)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per example b: d target[b, i...] / d source[b, j...] (examples independent),
        shaped [batch] + target.shape[1:] + source.shape[1:]."""
        self._check_usable()
        unconnected = UnconnectedGradients(unconnected_gradients)
        t = _as_target(target)
        tshape = _shape_list(t)
        if len(tshape) < 1 or any(d is None for d in tshape[1:]):
            raise ValueError(f"batch_jacobian: the target needs rank >= 1 and a static shape "
                             f"after the batch dimension, got {t.shape}")
        m = int(np.prod(tshape[1:], dtype=np.int64))
        from ..ops import array
        try:
            cols = []
            ones = array.ones_like(t)
            for j in range(m):
                seed = np.zeros(m, t.dtype.np)
                seed[j] = 1
                seed = ones * dispatch.convert_to_tensor(seed.reshape([1] + tshape[1:]))
                cols.append(_backward(self, [t], [source], [seed], unconnected)[0])
        finally:
            self._release()
        if m and all(c is None for c in cols):
            return None
        cols = [c if c is not None else _zeros_for(source) for c in cols]
        sshape = _shape_list(source)
        if m == 0:
            b = _static_shape(t, "batch_jacobian target")[0]
            return array.zeros([b] + tshape[1:] + sshape[1:], source.dtype)
        stacked = array.stack(cols, axis=1)       # [batch, m, source dims...]
        return array.reshape(stacked, [-1] + tshape[1:] + [
            -1 if d is None else d for d in sshape[1:]])


def _as_target(t):
    if _is_variable(t):
        return t._as_tensor()
    if isinstance(t, Tensor):
        return t
    return dispatch.convert_to_tensor(t)


def _shape_list(x) -> list:
    s = x.shape
    return [None if d is None else int(d) for d in s.as_list()] if s.rank is not None else None


def _static_shape(x, what) -> list:
    s = _shape_list(x)
    if s is None or any(d is None for d in s):
        raise ValueError(f"{what} needs a static shape, got {x.shape}")
    return s


def _zeros_for(x):
    from ..ops import array
    if _is_variable(x):
        s = x.shape
        if s.is_fully_defined():
            return array.zeros(s.as_list(), x.dtype)
        return array.zeros_like(x._value if _current_graph() is None else x._as_tensor())
    return array.zeros_like(x)


def _add(a, b):
    return dispatch.apply("add", (a, b))


def _sum(grads):
    """The gradients reaching one tensor, summed as TF's tape aggregates them: IndexedSlices
    only stay IndexedSlices (rows concatenated, none summed); with a dense one, all densify."""
    if len(grads) == 1:
        return grads[0]
    sparse = [isinstance(g, IndexedSlices) for g in grads]
    if all(sparse):
        from ..ops import array
        return IndexedSlices(array.concat([g.values for g in grads], 0),
                             array.concat([g.indices for g in grads], 0), grads[0].dense_shape)
    if any(sparse):
        from ..ops import math
        return math.add_n(grads)
    g = grads[0]
    for h in grads[1:]:
        g = _add(g, h)
    return g


# TF's gradients of these pass IndexedSlices through; every other gradient gets them dense
_KEEPS_SLICES = {"identity"}


def densify(g):
    """An IndexedSlices gradient as its dense tensor; any other gradient as it is."""
    return g._as_tensor() if isinstance(g, IndexedSlices) else g


# --- the backward pass ----------------------------------------------------------------------
def _call_grad(entry, needed, out_grads):
    if entry.grad_fn is not _read_grad and entry.type not in _KEEPS_SLICES:
        out_grads = [densify(g) for g in out_grads]
    if entry.grad_fn is not None:
        res = entry.grad_fn(needed, *out_grads)
    else:
        fn = GRADIENTS.get(entry.opdef.name)
        if fn is None:
            raise LookupError(f"No gradient defined for operation '{entry.opdef.name}' "
                              f"(op type: {entry.opdef.name})")
        res = fn(entry, *out_grads)
    if not isinstance(res, (list, tuple)):
        res = [res]
    if len(res) != len(entry.inputs):
        raise ValueError(f"the gradient function of '{entry.type}' returned {len(res)} "
                         f"gradients for {len(entry.inputs)} inputs")
    return res


def _backward(tape, targets, sources, output_gradients, unconnected):
    """Gradients of `targets` (weighted by `output_gradients`, default ones) for `sources`."""
    tracked = tape._tracked
    entries = list(tape._entries)  # a persistent tape may record the gradient ops it runs
    # Only entries reachable from a (tracked) source matter.
    reach = {id(s) for s in sources if id(s) in tracked}
    relevant = []
    for e in entries:
        for t in e.inputs:
            if id(t) in reach:
                break
        else:
            continue
        relevant.append(e)
        for o in e.outputs:
            reach.add(id(o))

    from ..ops import array
    pending: dict = {}
    for i, t in enumerate(targets):
        if id(t) not in reach or not _differentiable(t):
            continue
        g = output_gradients[i] if output_gradients is not None else None
        g = array.ones_like(t) if g is None else dispatch.convert_to_tensor(g, dtype=t.dtype)
        pending.setdefault(id(t), []).append(g)

    source_ids = {id(s) for s in sources}
    results: dict = {}
    for e in reversed(relevant):
        out_grads = []
        live = False
        for o in e.outputs:
            gl = pending.pop(id(o), None)
            if gl is None:
                out_grads.append(None)
                continue
            g = _sum(gl)
            if id(o) in source_ids:
                results[id(o)] = g
            out_grads.append(g)
            live = True
        if not live:
            continue
        needed = [id(t) in reach and _differentiable(t) for t in e.inputs]
        if not all(needed) and any(id(t) in reach and t.dtype.is_complex for t in e.inputs):
            raise errors.UnimplementedError(
                None, e.opdef.name, f"GradientTape.gradient: the gradient flows into a complex "
                f"input of {e.opdef.name}; flowjit does not differentiate complex tensors yet "
                f"(TF does)")
        in_grads = _call_grad(e, needed, out_grads)
        for t, g, nd in zip(e.inputs, in_grads, needed):
            if g is not None and nd:
                pending.setdefault(id(t), []).append(g)

    out = []
    for s in sources:
        g = results.get(id(s))
        if g is None:
            gl = pending.get(id(s))
            if gl:
                g = results[id(s)] = _sum(gl)
        if g is None and unconnected is UnconnectedGradients.ZERO:
            g = _zeros_for(s)
        out.append(g)
    return out


# --- custom_gradient, stop_gradient -----------------------------------------------------------
def custom_gradient(f=None):
    """Decorator: `f(*args)` returns `(y, grad_fn)`; `grad_fn(*dy)` gives the gradients of the
    tensor arguments. If `f` reads Variables, `grad_fn(*dy, variables=vars)` returns
    `(arg_grads, var_grads)`."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        if not _CTX.tapes:
            result, _ = f(*args, **kwargs)
            return result
        collector = GradientTape(watch_accessed_variables=True)
        with _all_paused():
            collector._push()
            try:
                result, grad_fn = f(*args, **kwargs)
            finally:
                collector._pop()
            from ..ops import array
            flat_out = [array.identity(o) for o in nest.flatten(result)]
        used_vars = list(collector.watched_variables())
        inputs = [a for a in nest.flatten((list(args), [kwargs[k] for k in sorted(kwargs)]))
                  if isinstance(a, Tensor)]
        if used_vars and not _accepts_variables(grad_fn):
            raise TypeError(f"@tf.custom_gradient grad_fn must accept keyword argument "
                            f"'variables', since function uses variables: {used_vars}")
        for v in used_vars:        # the read happened while the tapes were paused
            _variable_read_watch(v)

        def grad(needed, *upstream):
            from ..ops import array as arr
            ups = [u if u is not None else arr.zeros_like(o) for u, o in zip(upstream, flat_out)]
            if used_vars:
                in_g, var_g = grad_fn(*ups, variables=used_vars)
                var_g = list(var_g) if isinstance(var_g, (list, tuple)) else [var_g]
            else:
                in_g, var_g = grad_fn(*ups), []
            in_g = list(in_g) if isinstance(in_g, (list, tuple)) else [in_g]
            if len(in_g) != len(inputs):
                raise ValueError(f"custom_gradient: grad_fn of {getattr(f, '__name__', f)} "
                                 f"returned {len(in_g)} gradients for {len(inputs)} tensor "
                                 f"arguments")
            if len(var_g) != len(used_vars):
                raise ValueError(f"custom_gradient: grad_fn returned {len(var_g)} variable "
                                 f"gradients for {len(used_vars)} variables")
            return [None if g is None else dispatch.convert_to_tensor(g) for g in in_g + var_g]

        record_custom(inputs + used_vars, flat_out, grad)
        return nest.pack_sequence_as(result, flat_out)
    return wrapped


def recompute_grad(f):
    """`f` whose gradient recomputes `f`'s forward pass instead of keeping its intermediate
    values (TF trades memory for compute so; the values and gradients are `f`'s own)."""
    @functools.wraps(f)
    def inner(*args, **kwargs):
        @custom_gradient
        def forward(*tensors):
            result = f(*tensors, **kwargs)

            def grad_fn(*upstream, variables=None):
                with GradientTape(watch_accessed_variables=True) as tape:
                    tape.watch([t for t in tensors if isinstance(t, Tensor)])
                    again = f(*tensors, **kwargs)
                sources = list(tensors) + list(variables or [])
                grads = tape.gradient(nest.flatten(again), sources,
                                      output_gradients=list(upstream))
                if variables:
                    return grads[:len(tensors)], grads[len(tensors):]
                return grads
            return result, grad_fn
        return forward(*[dispatch.convert_to_tensor(a) for a in args])
    return inner


def grad_pass_through(f):
    """`f` whose gradient is the identity: each input receives the upstream gradient of the
    output as it is (for a non-differentiable `f`, e.g. an assignment, used as a straight-
    through estimator)."""
    @functools.wraps(f)
    def inner(*args, **kwargs):
        @custom_gradient
        def passed(*tensors):
            def grad_fn(*upstream, variables=None):
                if variables:
                    return list(upstream), [None] * len(variables)
                return list(upstream)
            return f(*tensors, **kwargs), grad_fn
        return passed(*args)
    return inner


def _accepts_variables(fn) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" or p.kind is p.VAR_KEYWORD for p in params)


def _variable_read_watch(var):
    g = _current_graph()
    for tape in _CTX.tapes:
        if _within(g, tape._graph) and tape._watch_accessed and var.trainable:
            tape._watch_variable(var)
