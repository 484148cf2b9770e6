"""Gradient checks against central finite differences, independent of any tape.

For a `Case` (an op, float64 sample inputs, attributes) the checks are:
- first order, eagerly: `GRADIENTS[op](record, upstream)` against the finite-difference
  vector-Jacobian product of the op's NumPy kernel;
- the same gradient built while tracing a tf.function whose inputs have unknown dims (the
  first dim, or all dims), run, and compared with the same finite differences;
- second order: h(x) = <gradient(x; u), v> is recorded op by op (a minimal reverse-mode tape
  built here from the registry's gradients, so every op the gradient uses must itself have a
  gradient), differentiated back to x, and compared with finite differences of h.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

import flowjit as tf
from flowjit.frontend.eager import dispatch
from flowjit.frontend.function.context import context
from flowjit.frontend.gradients import GRADIENTS
from flowjit.ir import dtypes as D
from flowjit.ir.registry import OPS, TT, infer_types
from flowjit.runtime.kernels import KERNELS

EPS = 1e-6


@dataclass
class Case:
    op: str
    inputs: list
    attrs: dict = field(default_factory=dict)
    graph: str | None = "first"   # unknown dims while tracing (see _unknown), None: no trace
    second: bool = True           # check second derivatives
    tag: str = ""
    rtol: float = 1e-5
    atol: float = 1e-6
    eps: float = EPS              # finite-difference step

    @property
    def id(self):
        return f"{self.op}-{self.tag}" if self.tag else self.op

    @property
    def full_attrs(self):
        return OPS[self.op].resolve_attrs(self.attrs)


def _is_float(a) -> bool:
    return np.asarray(a).dtype.kind == "f"


def forward(case, arrays):
    out = KERNELS[case.op](*arrays, **case.full_attrs)
    return [np.asarray(o) for o in (out if isinstance(out, tuple) else (out,))]


def upstreams(case, rng):
    return [rng.standard_normal(o.shape) if _is_float(o) else None
            for o in forward(case, case.inputs)]


def fd_vjp(f, arrays, i, eps=EPS):
    """Central differences of the scalar function f(arrays) with respect to arrays[i]."""
    x = arrays[i]
    out = np.zeros(x.shape)
    for j in np.ndindex(*x.shape):
        vals = []
        for step in (eps, -eps):
            xs = list(arrays)
            xs[i] = x.copy()
            xs[i][j] += step
            vals.append(f(xs))
        out[j] = (vals[0] - vals[1]) / (2 * eps)
    return out


def expected_vjp(case, ups):
    def f(xs):
        return sum(float(np.sum(u * o)) for u, o in zip(ups, forward(case, xs)) if u is not None)
    return [fd_vjp(f, case.inputs, i, case.eps) if _is_float(a) else None
            for i, a in enumerate(case.inputs)]


def _record(case, inputs, outputs):
    return SimpleNamespace(inputs=list(inputs), outputs=list(outputs), attrs=case.full_attrs,
                           opdef=OPS[case.op])


def eager_grads(case, arrays, ups):
    xs = [tf.constant(a) for a in arrays]
    out = dispatch.execute(OPS[case.op], xs, case.full_attrs)
    outs = list(out) if isinstance(out, tuple) else [out]
    us = [None if u is None else tf.constant(u) for u in ups]
    return GRADIENTS[case.op](_record(case, xs, outs), *us)


def compare(case, got, want, what):
    assert len(got) == len(want), what
    for i, (g, w) in enumerate(zip(got, want)):
        if w is None:
            assert g is None, f"{what}: input {i} is not a float but got a gradient"
            continue
        if g is None:
            # None means "no gradient" (TF's answer for an input the result ignores).
            assert not np.any(w), f"{what}: no gradient for float input {i}"
            continue
        if isinstance(g, tf.IndexedSlices):   # gather's gradient: compare it dense
            g = tf.convert_to_tensor(g)
        g = np.asarray(g)
        assert g.shape == w.shape, f"{what}: input {i}: shape {g.shape} != {w.shape}"
        np.testing.assert_allclose(g, w, rtol=case.rtol, atol=case.atol,
                                   err_msg=f"{what}: input {i}")


def check_first_order(case, seed=0):
    ups = upstreams(case, np.random.default_rng(seed))
    compare(case, eager_grads(case, case.inputs, ups), expected_vjp(case, ups),
            f"{case.id} eager")


# --- traced, with unknown dims ------------------------------------------------------------
def _unknown(shape, mode, index):
    """The traced shape of input `index`: mode "first" hides every input's first dim, "batch"
    only the first input's, "all" every dim. Size-1 dims stay known (an operand's unknown
    dim is assumed not to be broadcast, as unbroadcast documents) except in mode "all1"."""
    if mode == "batch":
        mode = "first" if index == 0 else "none"
    if mode == "none":
        return list(shape)
    if mode == "all1":
        return [None] * len(shape)
    hide = range(len(shape)) if mode == "all" else range(min(1, len(shape)))
    return [None if i in hide and d != 1 else d for i, d in enumerate(shape)]


def check_graph(case, seed=0, jit_compile=None):
    ups = upstreams(case, np.random.default_rng(seed))
    want = expected_vjp(case, ups)
    in_specs = [tf.TensorSpec(_unknown(a.shape, case.graph, i), D.from_numpy(a.dtype))
                for i, a in enumerate(case.inputs)]
    in_types = [TT(s.dtype, tuple(s.shape.dims)) for s in in_specs]
    out_types = infer_types(OPS[case.op], in_types, case.full_attrs)
    up_specs = [tf.TensorSpec(t.shape, t.dtype) for t, u in zip(out_types, ups) if u is not None]
    n = len(case.inputs)
    present = []  # which inputs got a gradient (only tensors cross the function boundary)

    def body(args):
        xs, us = list(args[:n]), iter(args[n:])
        for x, t in zip(xs, in_types):
            assert tuple(x.shape.dims) == t.shape, "the trace must see the unknown dims"
        out = dispatch.apply(case.op, xs, case.full_attrs)
        outs = list(out) if isinstance(out, tuple) else [out]
        full_ups = [None if u is None else next(us) for u in ups]
        grads = GRADIENTS[case.op](_record(case, xs, outs), *full_ups)
        present[:] = [g is not None for g in grads]
        return [g for g in grads if g is not None]

    f = tf.function(lambda *args: body(args), input_signature=in_specs + up_specs,
                    autograph=False, jit_compile=jit_compile)
    got = list(f(*case.inputs, *[u for u in ups if u is not None]))
    got_iter = iter(got)
    compare(case, [next(got_iter) if p else None for p in present], want,
            f"{case.id} traced ({case.graph} dims unknown{', XLA' if jit_compile else ''})")


# --- second order -------------------------------------------------------------------------
@contextlib.contextmanager
def _recording():
    records = []

    def hook(opdef, inputs, attrs):
        out = dispatch.execute(opdef, inputs, attrs)
        outs = list(out) if isinstance(out, tuple) else [out]
        records.append(SimpleNamespace(inputs=list(inputs), outputs=outs, attrs=dict(attrs),
                                       opdef=opdef))
        return out

    old = context().graph_hook
    context().graph_hook = hook
    try:
        yield records
    finally:
        context().graph_hook = old


def backprop(records, target, sources):
    """Reverse-mode sweep over recorded ops with the registry's gradient functions."""
    adj = {id(target): tf.ones_like(target)}
    for r in reversed(records):
        gs = [adj.get(id(o)) for o in r.outputs]
        if all(g is None for g in gs) or not r.opdef.differentiable:
            continue
        fn = GRADIENTS.get(r.opdef.name)
        assert fn is not None, f"op '{r.opdef.name}' used by a gradient has no gradient"
        for t, g in zip(r.inputs, fn(r, *gs)):
            if g is not None:
                adj[id(t)] = g if id(t) not in adj else adj[id(t)] + g
    return [adj.get(id(s)) for s in sources]


def _inner(case, xs, ups, vs):
    """<gradient of the op at xs for upstream ups, vs> as a scalar tensor."""
    out = dispatch.apply(case.op, xs, case.full_attrs)
    outs = list(out) if isinstance(out, tuple) else [out]
    us = [None if u is None else tf.constant(u) for u in ups]
    grads = GRADIENTS[case.op](_record(case, xs, outs), *us)
    total = None
    for g, v in zip(grads, vs):
        if g is not None:
            term = tf.reduce_sum(g * tf.constant(v))
            total = term if total is None else total + term
    return total


def check_second_order(case, seed=0):
    rng = np.random.default_rng(seed + 1)
    ups = upstreams(case, rng)
    vs = [rng.standard_normal(a.shape) if _is_float(a) else None for a in case.inputs]
    xs = [tf.constant(a) for a in case.inputs]
    with _recording() as records:
        total = _inner(case, xs, ups, vs)
    got = backprop(records, total, xs)

    def h(arrays):
        return float(_inner(case, [tf.constant(a) for a in arrays], ups, vs).numpy())

    for i, a in enumerate(case.inputs):
        if not _is_float(a):
            continue
        want = fd_vjp(h, case.inputs, i, eps=1e-5)
        g = np.zeros(a.shape) if got[i] is None else np.asarray(got[i])
        assert g.shape == want.shape, (g.shape, want.shape)
        np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-5,
                                   err_msg=f"{case.id}: second order, input {i}")


def run_all(case, seed=0):
    check_first_order(case, seed)
    if case.graph:
        check_graph(case, seed)
    if case.second:
        check_second_order(case, seed)
