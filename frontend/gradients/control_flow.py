"""Gradients through traced control flow: `cond`/`case` and `while` nodes.

A traced branch or loop body is a nested FuncGraph whose ops the tape never saw one by one, so
the node is recorded as one tape entry and its gradient *recomputes* the nested graph:

- `replay(graph, env)` re-emits a traced graph's nodes through `dispatch.apply` (eagerly or
  into the graph being built), reading Variables through `Variable._as_tensor` so a tape sees
  them. Under a fresh inner tape this gives the VJP of a branch or a loop body.
- cond/case: the gradient is a cond/case on the same selector whose branch i replays branch i
  under an inner tape and returns the gradients of the operands the outer tape needs.
- while: the forward loop keeps each iteration's loop values (a `[maximum_iterations, ...]`
  buffer written with tensor_scatter_nd_update, or, without a static bound, a buffer that grows
  by concat, which XLA cannot compile) and counts iterations; the gradient is a while loop
  running the iterations backwards, replaying the body under an inner tape per iteration.

Gradient code is built with the public control-flow functions, so an outer tape records it
too (higher derivatives). Limits: the recomputation reads Variables as they are when the
gradient runs, and re-draws stateful random numbers, so a body that assigns a Variable it also
reads, or uses stateful random ops, gets a gradient at the recomputed values.
"""
from __future__ import annotations

import collections

from ...ir import dtypes as D
from ...ir.registry import TT
from ..control import control_flow
from ..eager import dispatch
from ..function import func_graph
from ..function.context import GRADIENT_HOOKS, context
from . import tape as tape_mod

_ASSIGN = {"assign_variable": "assign", "assign_add_variable": "assign_add",
           "assign_sub_variable": "assign_sub"}
_EFFECTS = {"print", "assert"}


# --- replaying a traced graph ---------------------------------------------------------------
def replay(graph, env: dict, effects: bool = True, outer=None) -> list:
    """Run `graph`'s nodes again through the op API with its placeholders bound by `env`
    (placeholder node -> tensor, or Variable for a resource); returns its outputs. With
    `effects=False` variable updates, prints and asserts are left out (gradient recompute).
    `outer`: the replayed values of enclosing graphs, for nodes that use them directly."""
    vals = collections.ChainMap({}, outer) if outer is not None else {}
    for ph in graph.inputs:
        vals[ph] = (env[ph],)
    for node in graph.nodes:
        op = node.op
        if op == "placeholder":
            continue
        ins = [vals[n][i] for n, i in node.inputs]
        if op == "read_variable":
            out = (ins[0]._as_tensor(),)
        elif op in _ASSIGN:
            if effects:
                getattr(ins[0], _ASSIGN[op])(ins[1], read_value=False)
            out = ()
        elif op in _EFFECTS and not effects:
            out = ()
        elif op == "const":
            out = (dispatch._constant(node.attrs["value"], node.attrs["dtype"]),)
        elif op in ("cond", "case"):
            out = tuple(_replay_branches(node, ins, effects, vals))
        elif op == "while":
            out = tuple(_replay_while(node, ins, effects, vals))
        else:
            r = dispatch.apply(op, ins, node.attrs)
            out = r if isinstance(r, tuple) else (r,)
        vals[node] = out
    return [vals[n][i] for n, i in graph.outputs]


def _branch_env(g, operands) -> dict:
    return {ph: operands[ph.attrs["outer"]] for ph in g.inputs}


def _replay_branches(node, ins, effects, vals):
    fns = [(lambda b=b: replay(b, _branch_env(b, ins), effects, vals))
           for b in node.attrs["branches"]]
    if node.op == "cond":
        return control_flow.cond(ins[0], fns[0], fns[1])
    return control_flow.switch_case(ins[0], fns)


def _loop_env(g, vs, operands) -> dict:
    env = {}
    loop = iter(vs)
    for ph in g.inputs:
        k = ph.attrs.get("outer")
        env[ph] = next(loop) if k is None else operands[k]
    return env


def _replay_while(node, ins, effects, vals):
    n = node.attrs["num_loop_vars"]
    cg, bg = node.attrs["cond_graph"], node.attrs["body_graph"]
    return control_flow.while_flat(
        lambda *vs: replay(cg, _loop_env(cg, vs, ins), effects, vals)[0],
        lambda *vs: replay(bg, _loop_env(bg, vs, ins), effects, vals),
        list(ins[:n]), list(node.out_types), control_flow.WHILE_BOUNDS.get(node))


# --- helpers --------------------------------------------------------------------------------
def tape_tracks(sources) -> bool:
    return tape_mod.should_record(sources)


def _is_var(x) -> bool:
    return tape_mod._is_variable(x)


def _float(x) -> bool:
    return tape_mod._differentiable(x)


def _inner_sources(sources, wanted):
    """The values an inner gradient is taken for, inside the graph being built: outer tensors
    are captured first so that the tape watches the very tensors the replayed ops use."""
    g = func_graph.current()
    out = {}
    for k in wanted:
        s = sources[k]
        out[k] = s if _is_var(s) or g is None else g.capture(s)
    return out


def _zeros(x):
    return tape_mod._zeros_for(x)


def _type_of(x) -> TT:
    if _is_var(x):
        return TT(x.dtype, x.shape.as_tuple())
    return x._tt if hasattr(x, "_tt") else TT(x.dtype, tuple(x._value.shape))


def _vjp(graph, env, watch, targets, upstream):
    """Replay `graph` (placeholders bound by `env`) under a fresh tape watching the tensors and
    Variables `watch`; returns the gradients for `watch` of the outputs picked by `targets`,
    weighted by `upstream` (zeros where unconnected)."""
    with tape_mod.GradientTape(watch_accessed_variables=False) as inner:
        inner.watch(list(watch))
        outs = replay(graph, env, effects=False)
    grads = inner.gradient([outs[j] for j in targets], list(watch), output_gradients=upstream,
                           unconnected_gradients=tape_mod.UnconnectedGradients.ZERO)
    return [tape_mod.densify(g) for g in grads]


# --- cond / case ----------------------------------------------------------------------------
def record_branches(op, graphs, sources, outs):
    """Record a cond/case node (operands `sources`: selector, then captured values) on the
    tapes that track one of its operands."""
    if not tape_mod.should_record(sources[1:]):
        return
    outs = list(outs)
    float_outs = [j for j, o in enumerate(outs) if _float(o)]

    def grad_fn(needed, *upstream):
        wanted = [k for k in range(1, len(sources)) if needed[k] and _float(sources[k])]
        if not wanted or not float_outs:
            return [None] * len(sources)
        ups = [upstream[j] if upstream[j] is not None else _zeros(outs[j]) for j in float_outs]

        def branch(bg):
            def fn():
                srcs = _inner_sources(sources, wanted)
                env = {ph: srcs.get(ph.attrs["outer"], sources[ph.attrs["outer"]])
                       for ph in bg.inputs}
                return _vjp(bg, env, [srcs[k] for k in wanted], float_outs, ups)
            return fn

        fns = [branch(b) for b in graphs]
        if op == "cond":
            res = control_flow.cond(sources[0], fns[0], fns[1], name="cond_grad")
        else:
            res = control_flow.switch_case(sources[0], fns, name="case_grad")
        result = [None] * len(sources)
        for k, r in zip(wanted, res):
            result[k] = r
        return result

    tape_mod.record_custom(sources, outs, grad_fn)


# --- while ----------------------------------------------------------------------------------
def _needs_bound_error(name):
    which = f"tf.while_loop '{name}'" if name else "a tf.while_loop"
    return ValueError(
        f"Cannot differentiate {which} under jit_compile=True: XLA needs a static bound on "
        f"the number of iterations to keep each iteration's values for the gradient. Pass "
        f"maximum_iterations=<a Python int> to tf.while_loop (as TensorFlow requires in XLA "
        f"context).")


def differentiable_while(g, cg, bg, operands, sources, tts, max_iter, name):
    """The forward loop of a while a tape tracks, keeping each iteration's loop values and
    counting iterations, recorded with its gradient function. Returns the user's outputs."""
    from ..ops import array
    n = len(tts)
    if max_iter is None and getattr(control_flow.root_graph(g), "jit_compile", False):
        outs = control_flow.add_while_node(g, cg, bg, operands, tts, None, name)

        def refuse(needed, *upstream):
            raise _needs_bound_error(name)
        tape_mod.record_custom(sources, outs, refuse)
        return outs
    def stacked(tt, rows):
        return TT(tt.dtype, None if tt.shape is None else (rows,) + tuple(tt.shape))
    acc_tts = [stacked(tt, max_iter) for tt in tts]
    bound = max_iter if max_iter is not None else 0

    def ones_after(lead, v):
        """[lead, 1, ..., 1] for v's rank: static where the rank is known; else shape
        arithmetic, which XLA's shape specialization evaluates."""
        if v.shape.rank is not None:
            return [lead] + [1] * v.shape.rank
        return array.concat([[lead], array.shape(v) * 0 + 1], 0)

    def empty(v):
        # [bound, *shape] zeros (bound 0: an empty growing buffer), also for an unknown rank
        return array.gather(array.expand_dims(array.zeros_like(v), 0),
                            array.zeros([bound], D.int32))

    def write(acc, i, v):
        row = array.expand_dims(v, 0)
        if max_iter is None:
            return array.concat([acc, row], 0)
        dims = acc.shape.dims
        if dims is not None and 0 in dims:   # no iteration or no element to keep (and no
            return acc                       # scatter into [])
        if dims is None or None in dims:   # may be empty at run time, where a scatter
            from ..ops import math           # refuses: select the row
            hit = math.equal(array.range(max_iter), i)
            return math.where(array.reshape(hit, ones_after(max_iter, v)), row, acc)
        return array.tensor_scatter_nd_update(acc, array.reshape(i, [1, 1]), row)

    def acond(i, *rest):
        return replay(cg, _loop_env(cg, rest[:n], sources), effects=True)[0]

    def abody(i, *rest):
        vs, accs = rest[:n], rest[n:]
        new_accs = [write(a, i, v) for a, v in zip(accs, vs)]
        outs = replay(bg, _loop_env(bg, vs, sources), effects=True)
        return [i + 1] + list(outs) + new_accs

    zero = dispatch.convert_to_tensor(0, dtype=D.int32)
    inits = [zero] + list(operands[:n]) + [empty(v) for v in operands[:n]]
    aug_tts = [TT(D.int32, ())] + list(tts) + acc_tts
    res = control_flow.while_flat(acond, abody, inits, aug_tts, max_iter, name, record=False)
    count, outs, accs = res[0], res[1:n + 1], res[n + 1:]

    def grad_fn(needed, *upstream):
        F = [j for j in range(n) if tts[j].dtype.is_floating]
        caps = [k for k in range(n, len(sources)) if needed[k] and _float(sources[k])]
        if not (caps or any(needed[j] for j in F)):
            return [None] * len(sources)
        gv0 = [upstream[j] if upstream[j] is not None else _zeros(outs[j]) for j in F]
        gc0 = [_zeros(sources[k]) for k in caps]
        nf = len(F)
        # Gradients arriving at the kept per-iteration values (a second derivative reads them
        # through the first one's backward loop) join the loop values' gradients per iteration.
        g_acc = {j: upstream[n + j] for j in F if upstream[n + j] is not None}

        def bcond(k, *rest):
            return k > 0

        def bbody(k, *rest):
            gv, gc = rest[:nf], rest[nf:]
            k1 = k - 1
            vs = [array.gather(a, k1) for a in accs]
            cap_srcs = _inner_sources(sources, caps)
            env = {}
            loop = iter(vs)
            for ph in bg.inputs:
                kk = ph.attrs.get("outer")
                env[ph] = next(loop) if kk is None else cap_srcs.get(kk, sources[kk])
            grads = _vjp(bg, env, [vs[j] for j in F] + [cap_srcs[kk] for kk in caps], F,
                         list(gv))
            new_gc = [dispatch.apply("add", (a, b)) for a, b in zip(gc, grads[nf:])]
            new_gv = [dispatch.apply("add", (g, array.gather(g_acc[j], k1))) if j in g_acc
                      else g for j, g in zip(F, grads[:nf])]
            return [k1] + new_gv + new_gc

        btts = [TT(D.int32, ())] + [tts[j] for j in F] + [_type_of(sources[k]) for k in caps]
        bres = control_flow.while_flat(bcond, bbody, [count] + gv0 + gc0, btts, max_iter,
                                       "while_grad")
        result = [None] * len(sources)
        for idx, j in enumerate(F):
            if needed[j]:
                result[j] = bres[1 + idx]
        for idx, k in enumerate(caps):
            result[k] = bres[1 + nf + idx]
        return result

    tape_mod.record_custom(sources, list(outs) + list(accs), grad_fn)
    return outs


# --- a traced function called under an eager tape -------------------------------------------
def call_under_tape(cf, flat):
    """A ConcreteFunction called eagerly while a tape tracks one of its inputs or Variables:
    its graph is replayed op by op, eagerly, so the tape records every op (TF records the call
    as one op with a gradient function; the values are the same). None: run it normally."""
    if not _eager_tape_sees(flat, cf.captures):
        return None
    from ..function.function_call import rebuild
    args = iter(flat)
    env = {}
    for ph in cf.graph.inputs:
        c = ph.attrs.get("capture")
        env[ph] = next(args) if c is None else c
    with func_graph.init_scope():
        outs = replay(cf.graph, env, effects=True)
    return rebuild(cf.structure, outs)


def _eager_tape_sees(flat, captures) -> bool:
    for tape in context().tapes:
        if tape._graph is not None:
            continue
        tracked = tape._tracked
        if any(id(t) in tracked for t in flat):
            return True
        for c in captures:
            if _is_var(c) and (id(c) in tracked or (tape._watch_accessed and c.trainable)):
                return True
    return False


GRADIENT_HOOKS.update(record_branches=record_branches, tape_tracks=tape_tracks,
                      differentiable_while=differentiable_while, call_under_tape=call_under_tape)
