"""`cond`, `switch_case` and `while_loop`.

Eagerly they run Python. While tracing, each branch or loop function is traced into a nested
FuncGraph with its own captures, and one `cond`/`case`/`while` node joins the outer graph;
its operands are the predicate (or loop values) followed by every captured outer value.
When a GradientTape tracks one of those operands, the node is recorded on it with a gradient
built by gradients/control_flow.py (a loop then also keeps each iteration's values).
"""
from __future__ import annotations

import weakref

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ...ir.registry import TT
from ...ir.shapes import TensorShape, as_shape
from ..eager import dispatch
from ..function import func_graph
from .. import nest
from ..function.context import GRADIENT_HOOKS, context
from ..function.func_graph import FuncGraph, GraphTensor
from ..eager.tensor import Tensor


def _is_variable(x) -> bool:
    return hasattr(x, "_handle") and hasattr(x, "assign")


def _to_tensor(x, what: str):
    if _is_variable(x):
        return x._as_tensor()
    try:
        return dispatch.convert_to_tensor(x)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{what}: {x!r} is not convertible to a tensor ({e})") from None


def _trace_fn(outer: FuncGraph, fn, args, name: str, arg_tts=(), keep_none=False):
    """Trace `fn(*placeholders)` into a nested graph; returns (graph, structure, flat outs).
    With `keep_none` a None in the result stays in the structure and has no output (a
    branch run for its side effects returns None)."""
    g = FuncGraph(f"{outer.name}/{name}", outer=outer)
    with func_graph.as_default(g):
        phs = [g.placeholder(tt, name=f"loop_var_{i}") for i, tt in enumerate(arg_tts)]
        out = fn(*nest.pack_sequence_as(args, phs)) if arg_tts else fn()
        flat = [g.capture(_to_tensor(v, f"{name} output")) for v in nest.flatten(out)
                if not (keep_none and v is None)]
    g.outputs = [(t._node, t._index) for t in flat]
    return g, out, flat


def _link_captures(outer: FuncGraph, graphs, operands: list, sources: list | None = None):
    """Make each nested graph's outer captures operands of the node (shared ones once).
    `sources` (optional, parallel to `operands`) receives what each operand stands for: the
    outer tensor, or the Variable for a resource operand (what a GradientTape tracks)."""
    index = {}
    for g in graphs:
        for ph in g.inputs:
            k = ph.attrs.get("outer")
            if k is None:
                continue
            value = g.outer_captures[k]
            pos = index.get(id(value))
            if pos is None:
                t = outer.resource(value) if _is_variable(value) else outer.capture(value)
                operands.append(t)
                if sources is not None:
                    sources.append(value)
                pos = index[id(value)] = len(operands) - 1
            ph.attrs["outer"] = pos


def _merge_types(name: str, branch_names, flats) -> list:
    """Branch outputs must agree in dtype; shapes merge to what all branches agree on."""
    n = len(flats[0])
    for bn, f in zip(branch_names[1:], flats[1:]):
        if len(f) != n:
            raise ValueError(f"{name}: {branch_names[0]} and {bn} must have the same number, "
                             f"type, and overall structure of return values "
                             f"({n} vs {len(f)} tensors)")
    out = []
    for i in range(n):
        tts = [f[i]._tt for f in flats]
        for bn, t in zip(branch_names[1:], tts[1:]):
            if t.dtype is not tts[0].dtype:
                raise TypeError(f"{name}: output {i} of {branch_names[0]} has dtype "
                                f"{tts[0].dtype.name} but {bn} returns {t.dtype.name}")
        shape = TensorShape.from_tuple(tts[0].shape)
        for t in tts[1:]:
            shape = shape.most_specific_compatible_shape(TensorShape.from_tuple(t.shape))
        out.append(TT(tts[0].dtype, shape.as_tuple()))
    return out


# --- cond / switch_case ---------------------------------------------------------------------
def cond(pred, true_fn=None, false_fn=None, name=None):
    """Run `true_fn()` if pred else `false_fn()`; traced, both branches become graphs."""
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("cond: true_fn and false_fn must be callable")
    g = func_graph.current()
    if g is None or isinstance(pred, (bool, int)) and not isinstance(pred, Tensor):
        return true_fn() if bool(pred) else false_fn()
    pred = _to_tensor(pred, "cond predicate")
    if pred.dtype is not D.bool_ or (pred._tt.shape is not None and len(pred._tt.shape)):
        raise TypeError(f"cond: pred must be a scalar bool tensor, got "
                        f"{pred.dtype.name}{list(pred.shape) if pred.shape else ''}")
    return _build_branches(g, "cond", pred, [true_fn, false_fn], ["true_fn", "false_fn"], name)


def switch_case(branch_index, branch_fns, default=None, name=None):
    """Run `branch_fns[branch_index]()` (`default`, else the last branch, when out of range)."""
    if isinstance(branch_fns, dict):
        keys = sorted(branch_fns)
        if keys != list(range(len(keys))):
            raise ValueError(f"switch_case: branch_fns keys must be 0..{len(keys) - 1}, "
                             f"got {keys}")
        fns = [branch_fns[k] for k in keys]
    else:
        fns = list(branch_fns)
    if not fns or not all(callable(f) for f in fns):
        raise TypeError("switch_case: branch_fns must be a non-empty list of callables")
    if default is not None:
        fns.append(default)
    g = func_graph.current()
    if g is None:
        i = int(branch_index)
        return fns[i]() if 0 <= i < len(fns) - (default is not None) else fns[-1]()
    idx = _to_tensor(branch_index, "switch_case branch_index")
    if idx.dtype is not D.int32 or (idx._tt.shape is not None and len(idx._tt.shape)):
        raise TypeError(f"switch_case: branch_index must be a scalar int32 tensor, got "
                        f"{idx.dtype.name}")
    names = [f"branch_{i}" for i in range(len(fns))]
    return _build_branches(g, "case", idx, fns, names, name)


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """TF's `tf.case`: the fn of the first pair whose pred is true, else `default` (else the
    last fn; none true is an error). Traced: one `case` node selected by the index of the
    first true pred, so gradients follow `switch_case`'s."""
    pairs = _case_pairs(pred_fn_pairs)
    preds = [p for p, _ in pairs]
    fns = [f for _, f in pairs]
    g = func_graph.current()
    if g is None:
        truth = [bool(p) for p in preds]
        _check_case(truth, preds, default, exclusive)
        chosen = truth.index(True) if any(truth) else None
        return fns[chosen]() if chosen is not None else default()
    from ..ops import array, math, reduce
    flags = math.cast(array.stack(preds), D.int32)
    # The first true pred's index; none true selects the branch after the pairs (default),
    # or without a default switch_case's out-of-range branch: the last fn, as TF.
    index = math.cast(reduce.argmax(array.concat([flags, array.ones([1], D.int32)], 0)),
                      D.int32)
    # TF's XLA bridge compiles Assert to nothing; flowjit's XLA refuses asserts, so the run
    # time checks are left out of XLA-compiled functions, as TF leaves them out.
    if not getattr(root_graph(g), "jit_compile", False):
        from ..ops.logging import Assert
        count = reduce.reduce_sum(flags)
        if exclusive:
            Assert(math.less_equal(count, 1), ["Input error: exclusive=True: more than 1 "
                                               "conditions evaluated as True", *preds])
        if default is None:
            Assert(math.greater(count, 0), ["Input error: None of conditions evaluated as "
                                            "True", *preds])
    return switch_case(index, fns if default is None else fns + [default], name=name)


def root_graph(g):
    """The outermost graph (the traced function's) of a nested branch or loop graph."""
    while g.outer is not None:
        g = g.outer
    return g


def _case_pairs(pred_fn_pairs):
    if isinstance(pred_fn_pairs, dict):
        pairs = list(pred_fn_pairs.items())
    elif isinstance(pred_fn_pairs, (list, tuple)):
        pairs = list(pred_fn_pairs)
    else:
        raise TypeError(f"'pred_fn_pairs' must be a list, tuple, or dict. Received: "
                        f"{type(pred_fn_pairs)}")
    if not pairs:
        raise ValueError("tf.case: pred_fn_pairs must not be empty")
    for pred, fn in pairs:
        if not isinstance(pred, Tensor):
            raise TypeError(f"pred must be a Tensor, got: {pred!r}")
        if pred.dtype is not D.bool_:
            raise TypeError(f"pred must be Tensor of type bool: {pred!r}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred!r} must be callable.")
    return pairs


def _check_case(truth, preds, default, exclusive):
    """Eager `tf.case`'s checks, with TF's class and texts."""
    shown = ", ".join(str(t) for t in truth)
    if exclusive and sum(truth) > 1:
        raise errors.InvalidArgumentError(
            None, "case", f"Input error: exclusive=True: more than 1 conditions evaluated as "
            f"True:\n{shown}")
    if default is None and not any(truth):
        raise errors.InvalidArgumentError(
            None, "case", f"Input error: None of conditions evaluated as True:\n{shown}")


def _build_branches(g, op, selector, fns, names, name):
    traced = [_trace_fn(g, fn, (), bn, keep_none=True) for fn, bn in zip(fns, names)]
    structures = [t[1] for t in traced]
    for bn, s in zip(names[1:], structures[1:]):
        if not nest.same_structure(structures[0], s):
            raise ValueError(f"{op}: {names[0]} and {bn} must have the same number, type, and "
                             f"overall structure of return values; got {structures[0]!r} and "
                             f"{s!r}")
    counts = [len(t[2]) for t in traced]
    for i, n in enumerate(counts[1:], 1):
        if n != counts[0]:   # a None against a tensor (TF's check and text)
            raise ValueError(f"Lengths of branch outputs of {op} must match.\n"
                             f"len(graphs[0].outputs): {counts[0]}\n"
                             f"len(graphs[{i}].outputs): {n}")
    out_types = _merge_types(op, names, [t[2] for t in traced])
    graphs = [t[0] for t in traced]
    outs = iter(add_branch_node(g, op, selector, graphs, out_types, name=name))
    # the first branch's structure, its Nones kept (TF packs by the true branch's)
    return nest.pack_sequence_as(structures[0], [None if v is None else next(outs)
                                                 for v in nest.flatten(structures[0])])


def add_branch_node(g, op, selector, graphs, out_types, stateful=None, name=None):
    """Add a `cond`/`case` node for traced branch graphs (their outputs set) to `g`, linking
    their captures; an active GradientTape that tracks one of its operands records it."""
    selector = g.capture(selector)
    operands, sources = [selector], [selector]
    _link_captures(g, graphs, operands, sources)
    if stateful is None:
        stateful = any(x.stateful for x in graphs)
    outs = g.add_op(op, operands, {"branches": tuple(graphs)}, out_types, stateful=stateful,
                    name=name)
    if context().tape_hook is not None:
        GRADIENT_HOOKS["record_branches"](op, graphs, sources, outs)
    return outs


# --- while_loop ----------------------------------------------------------------------------
# Loop variables that need a trace of the body before they can enter a loop (a TensorArray
# with nothing written yet gets its element shape from it), registered by their modules:
# objects with `needs_trace(structure) -> bool` and `adopt(structure, traced_out)`.
LOOP_VAR_SHAPERS: list = []


def is_subshape(left, right) -> bool:
    """Whether shape tuple `left` is at least as specific as `right` (TF's loop-variable
    check: a dim known before the loop must keep its size; an unknown one may take any)."""
    if right is None:
        return True
    if left is None or len(left) != len(right):
        return False
    return all(r is None or a == r for a, r in zip(left, right))


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None,
               static_trip_bound=None):
    """Repeat `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`.

    `static_trip_bound` (AutoGraph's, not TF's API) is a Python int the caller knows bounds
    the iterations (a `for` over a range of static length): gradients under XLA size their
    per-iteration storage with it, as with `maximum_iterations`, without an extra counter."""
    if not callable(cond) or not callable(body):
        raise TypeError("while_loop: cond and body must be callable")
    single = not isinstance(loop_vars, (list, tuple))
    structure = [loop_vars] if single else loop_vars
    g = func_graph.current()
    if g is None:
        return _eager_while(cond, body, structure, maximum_iterations, single)
    if any(shaper.needs_trace(structure) for shaper in LOOP_VAR_SHAPERS):
        structure = _with_element_shapes(g, body, structure, single)
    flat = [_to_tensor(v, "while_loop loop_vars") for v in nest.flatten(structure)]
    paths = [p for p, _ in nest.flatten_with_paths(structure)]
    invariants = [None] * len(flat) if shape_invariants is None else \
        nest.flatten(shape_invariants if not single else [shape_invariants])
    if len(invariants) != len(flat):
        raise ValueError("while_loop: shape_invariants must match the structure of loop_vars")
    tts = []
    for path, v, inv in zip(paths, flat, invariants):
        shape = v.shape.as_tuple()   # an eager tensor (captured later) has no _tt
        if inv is not None:
            inv = as_shape(inv)
            if not inv.is_compatible_with(TensorShape.from_tuple(shape)):
                raise ValueError(f"while_loop: loop variable loop_vars{path} has shape "
                                 f"{TensorShape.from_tuple(shape)}, not compatible with its "
                                 f"shape invariant {inv}")
            shape = inv.as_tuple()
        tts.append(TT(v.dtype, shape))

    counter = maximum_iterations is not None
    if counter:
        # An iteration counter joins the loop values: (i, loop_vars).
        limit = _to_tensor(maximum_iterations, "maximum_iterations")
        if limit.dtype is not D.int32:
            from ..ops.math import cast
            limit = cast(limit, D.int32)
        from ..ops.math import less, logical_and
        full = (dispatch.convert_to_tensor(0, dtype=D.int32), list(structure))
        tts = [TT(D.int32, ())] + tts
        flat = [full[0]] + flat
        paths = ["<iteration counter>"] + paths

        def wcond(i, vs):
            return logical_and(less(i, limit), _as_bool(cond(*vs)))

        def wbody(i, vs):
            return (i + 1, _normalize_body_out(body(*vs), single))
    else:
        full = list(structure)

        def wcond(*vs):
            return _as_bool(cond(*vs))

        def wbody(*vs):
            return _normalize_body_out(body(*vs), single)

    bound = _static_int(maximum_iterations)
    if bound is None:
        bound = static_trip_bound
    outs = _while_node(g, wcond, wbody, full, flat, tts, paths, structure, name, bound,
                       record=bool(back_prop))
    outs = list(outs[1:] if counter else outs)
    result = nest.pack_sequence_as(structure, outs)
    return result[0] if single else result


def _with_element_shapes(g, body, structure, single):
    """TensorArrays in `structure` with nothing written yet get the element shapes a trace of
    `body` (into a graph that is then dropped) writes, so they can be loop variables."""
    tts = [_to_tensor(v, "while_loop loop_vars")._tt for v in nest.flatten(structure)]
    _, out, _ = _trace_fn(g, lambda *vs: _normalize_body_out(body(*vs), single), structure,
                          "element_shapes", tts)
    for shaper in LOOP_VAR_SHAPERS:
        structure = shaper.adopt(structure, out)
    return structure


# Static `maximum_iterations` of while nodes (gradients preallocate per-iteration storage).
WHILE_BOUNDS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _while_node(g, wcond, wbody, full, flat, tts, paths, structure, name, max_iter,
                record=True):
    """Trace `wcond`/`wbody` over loop values `full` (types `tts`) and add one `while` node
    to `g`; returns its outputs. A GradientTape tracking the loop gets a differentiable loop
    (gradients/control_flow.py) unless `record` is False."""
    cg, _, cflat = _trace_fn(g, wcond, full, "cond", tts)
    if len(cflat) != 1 or cflat[0].dtype is not D.bool_ or (
            cflat[0]._tt.shape is not None and len(cflat[0]._tt.shape)):
        raise TypeError(f"while_loop: cond must return a scalar bool tensor, got "
                        f"{[str(t._tt) for t in cflat]}")
    if cg.stateful:
        raise errors.UnimplementedError(None, "while", "while_loop: side effects (variable "
                                        "updates, print, assert) in `cond` are not supported; "
                                        "move them into `body`")
    bg, bout, bflat = _trace_fn(g, wbody, full, "body", tts)
    if not nest.same_structure(full, bout):
        raise ValueError(f"while_loop: body must return the same structure as loop_vars; "
                         f"loop_vars {structure!r}, body returned {bout!r}")
    for path, tt, out in zip(paths, tts, bflat):
        if out.dtype is not tt.dtype:
            raise TypeError(f"while_loop: loop variable loop_vars{path} enters the loop as "
                            f"{tt.dtype.name} but body returns {out.dtype.name}")
        if not is_subshape(out._tt.shape, tt.shape):
            raise ValueError(
                f"while_loop: input tensor loop_vars{path} enters the loop with shape "
                f"{TensorShape.from_tuple(tt.shape)}, but has shape "
                f"{TensorShape.from_tuple(out._tt.shape)} after one iteration. To allow the "
                f"shape to vary across iterations, use the `shape_invariants` argument of "
                f"tf.while_loop to specify a less-specific shape")
    operands = [g.capture(t) for t in flat]
    sources = list(flat)   # what a tape tracks: an eager loop value, not its capture
    _link_captures(g, [cg, bg], operands, sources)
    if record and context().tape_hook is not None and GRADIENT_HOOKS["tape_tracks"](sources):
        return GRADIENT_HOOKS["differentiable_while"](g, cg, bg, operands, sources, tts,
                                                      max_iter, name)
    return add_while_node(g, cg, bg, operands, tts, max_iter, name)


def add_while_node(g, cg, bg, operands, tts, max_iter=None, name=None):
    """The `while` node itself (captures already linked)."""
    outs = g.add_op("while", operands, {"cond_graph": cg, "body_graph": bg,
                                        "num_loop_vars": len(tts)},
                    tts, stateful=bg.stateful, name=name)
    WHILE_BOUNDS[outs[0]._node] = max_iter
    return outs


def while_flat(cond_fn, body_fn, inits, tts=None, max_iter=None, name=None, record=True):
    """A while loop over a flat list of tensors (`cond_fn(*vs)`, `body_fn(*vs) -> list`):
    Python eagerly, one node while tracing. Used to rebuild and differentiate loops."""
    g = func_graph.current()
    if g is None:
        vals = list(inits)
        n = 0
        while (max_iter is None or n < max_iter) and bool(cond_fn(*vals)):
            vals = list(body_fn(*vals))
            n += 1
        return vals
    flat = [_to_tensor(v, "while_loop loop_vars") for v in inits]
    if tts is None:
        tts = [t._tt for t in flat]
    paths = [f"[{i}]" for i in range(len(flat))]
    return list(_while_node(g, cond_fn, lambda *vs: list(body_fn(*vs)), list(flat), flat,
                            list(tts), paths, list(flat), name, max_iter, record))


def _static_int(v):
    """A Python int for a maximum_iterations known while tracing, else None."""
    if v is None:
        return None
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return int(v)
    if isinstance(v, GraphTensor):
        node = v._node
        if node.op == "const":
            return int(np.asarray(node.attrs["value"]).reshape(()))
        return None
    if isinstance(v, Tensor):
        return int(v)
    return None


def _as_bool(x):
    return _to_tensor(x, "while_loop cond result") if not isinstance(x, bool) else \
        dispatch.convert_to_tensor(x)


def _normalize_body_out(out, single):
    if single and not isinstance(out, (list, tuple)):
        return [out]
    if not isinstance(out, (list, tuple)):
        return [out]
    return list(out) if isinstance(out, tuple) and not hasattr(out, "_fields") else out


def _eager_while(cond, body, structure, maximum_iterations, single):
    vals = structure
    n = 0
    limit = None if maximum_iterations is None else int(maximum_iterations)
    while (limit is None or n < limit) and bool(cond(*vals)):
        out = body(*vals)
        vals = _normalize_body_out(out, single)
        if not nest.same_structure(structure, vals) and not single:
            raise ValueError(f"while_loop: body must return the same structure as loop_vars; "
                             f"got {out!r}")
        n += 1
    if isinstance(structure, tuple) and not isinstance(vals, tuple):
        vals = tuple(vals)
    return vals[0] if single else vals
