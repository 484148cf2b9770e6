"""Staged `if` and loops: the graph-building half of the runtime operators.

`stage_if` traces both branches into nested graphs (each starting from the same variable
values), reconciles what each left in the live variables, and joins them in one `cond` node:

- a variable only one branch defines raises TF's "'w' must also be initialized in the else
  branch" (the return value of a function that returns on every path instead gets a
  placeholder in the branch that does not return: that path is guarded by `do_return`);
- equal Python values stay Python values; other values become tensors, whose dtypes must
  match; nested structures must match;
- staged lists (`TensorList`) join component-wise.

`stage_loop` builds one `while` from a `while` statement or a `for` over a staged iterable
(`TensorRange`, a tensor over its first dimension, `enumerate`/`zip` of those). Loop
variables are flattened to tensors (Python numbers converted, nests and staged lists
flattened); after one traced iteration each must keep its structure, dtype and shape
(unless `set_loop_options(shape_invariants=...)` relaxes it), else the error names it.
Before building, a probe traces the body once into a scratch graph when some loop variable
is not defined before the loop (it starts as zeros of the type the body gives it, as in TF),
or when the body appends to a list (to learn the element type and how many elements one
iteration appends). While a probe runs, nested loops are only probed, not built.
"""
from __future__ import annotations

import contextlib
import math as _pymath
import sys

from ...ir import dtypes as D
from ...ir import errors
from ...ir.registry import OPS, TT
from ...ir.shapes import TensorShape
from ..control import control_flow, tensor_array
from ..eager import dispatch
from ..function import func_graph
from .. import nest
from ..function.func_graph import FuncGraph, GraphTensor
from ..eager.shape_args import traced_value
from ..eager.tensor import Tensor
from . import lint, trace_state
from .features import Feature
from .errors import InaccessibleTensorError, is_user_file
from .lists import ProbeCell, TensorList
from .values import UndefinedReturnValue, is_undefined

_REGIONS: list = []        # staged regions being traced ("cond" / "loop"), innermost last
_ACTIVE_LOOPS: list = []   # loop frames whose body is being traced
_BRANCH_LISTS: list = []   # per staged branch being traced: ids of the lists it started with


def in_staged_region() -> bool:
    return bool(_REGIONS)


@contextlib.contextmanager
def _region(kind):
    _REGIONS.append(kind)
    try:
        yield
    finally:
        _REGIONS.pop()


def _is_variable(x) -> bool:
    return hasattr(x, "_handle") and hasattr(x, "assign")


def is_symbolic(x) -> bool:
    """A value only known when the graph runs: it decides control flow by staging."""
    if isinstance(x, GraphTensor):
        return True
    return func_graph.current() is not None and _is_variable(x)


def _user_filename():
    f = sys._getframe(2)
    while f is not None and not is_user_file(f.f_code.co_filename):
        f = f.f_back
    return f.f_code.co_filename if f is not None else "<unknown>"


def lists_staged() -> bool:
    """Whether Python lists appended to in staged code become `TensorList`s
    (`Feature.LISTS`); otherwise, as in TF, their tensors cannot leave the region."""
    return trace_state.enabled(Feature.LISTS)


def inaccessible(name, region):
    return InaccessibleTensorError(
        f"list '{name}' gets a tensor appended inside a staged {region}: the tensor is out of "
        f"scope after it and cannot be used here (as in TF). Use "
        f"return values or a tf.TensorArray, or enable tf.autograph.experimental.Feature.LISTS "
        f"to stage the list")


def is_branch_input_list(lst) -> bool:
    """`lst` is a list a staged branch got from before the `if` (not one it made)."""
    return any(id(lst) in ids for ids in _BRANCH_LISTS)


def _lint(opts, construct):
    sites = (opts or {}).get("lint")
    if sites and not trace_state.probing():
        lint.warn(sites, _user_filename(), construct, trace_state.context())


def _tt_of(t):
    if isinstance(t, GraphTensor):
        return t._tt
    return TT(t.dtype, tuple(t.shape.as_tuple()))


def _shape_str(shape):
    return str(TensorShape.from_tuple(shape))


def _as_tensor(x):
    if _is_variable(x):
        return x._as_tensor()
    return dispatch.convert_to_tensor(x)


def _pred_tensor(pred, construct):
    g = func_graph.current()
    t = g.capture(_as_tensor(pred))
    shape = t._tt.shape
    if t.dtype is not D.bool_ or (shape is not None and len(shape)):
        raise TypeError(f"The condition of {construct} must be a scalar bool tensor, got "
                        f"{t.dtype.name} tensor of shape {_shape_str(shape)}")
    return t


def _describe(v):
    if isinstance(v, Tensor):
        return f"a {v.dtype.name} tensor of shape {v.shape}"
    if isinstance(v, TensorList):
        return "a staged list"
    return f"{type(v).__name__} {v!r}"


def _py_equal(a, b) -> bool:
    if a is b:
        return True
    if isinstance(a, (Tensor, TensorList)) or isinstance(b, (Tensor, TensorList)) or \
            _is_variable(a) or _is_variable(b):
        return False
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def _is_tensor_leaf(v) -> bool:
    return isinstance(v, Tensor) or _is_variable(v)


# --- conditionals ---------------------------------------------------------------------------
class _Const:
    def __init__(self, value):
        self.value = value

    def build(self, results):
        return self.value


class _Out:
    def __init__(self, index):
        self.index = index

    def build(self, results):
        return results[self.index]


class _ListPlan:
    def __init__(self, template, start, static_length, delta):
        self.template, self.start = template, start
        self.static_length, self.delta = static_length, delta

    def build(self, results):
        return self.template.rebuild(list(results[self.start:self.start + 2]),
                                     self.static_length, self.delta, self.template.owner)


class _NestPlan:
    def __init__(self, template, leaves):
        self.template, self.leaves = template, leaves

    def build(self, results):
        vals = [p.build(results) for p in self.leaves]
        if not nest.is_nested(self.template):
            return vals[0]
        return nest.pack_sequence_as(self.template, vals)


def stage_if(pred, body, orelse, get_state, set_state, names, opts):
    outer = func_graph.current()
    pred = _pred_tensor(pred, "an if statement")
    _lint(opts, "tf.cond branch")
    init = tuple(get_state())
    branches = []
    for fn, tag in ((body, "true"), (orelse, "false")):
        g = FuncGraph(f"{outer.name}/if_{tag}", outer=outer)
        with func_graph.as_default(g), _region("cond"):
            # Each branch gets its own containers: one may change items in place.
            fresh = tuple(_fresh(v) for v in init)
            set_state(fresh)
            _BRANCH_LISTS.append({id(v) for v in fresh if isinstance(v, list)})
            try:
                fn()
            finally:
                _BRANCH_LISTS.pop()
            branches.append((g, tuple(get_state())))
    set_state(init)
    set_state(_join(outer, pred, names, init, branches, "if", (opts or {}).get("dead", ())))


def _fresh(v):
    return nest.map_structure(lambda leaf: leaf, v) if nest.is_nested(v) else v


_NOTHING = object()


def stage_if_exp(pred, true_fn, false_fn, label):
    outer = func_graph.current()
    pred = _pred_tensor(pred, f"the conditional expression `... if {label} else ...`")
    branches = []
    for fn, tag in ((true_fn, "true"), (false_fn, "false")):
        g = FuncGraph(f"{outer.name}/ifexp_{tag}", outer=outer)
        with func_graph.as_default(g), _region("cond"):
            branches.append((g, (fn(),)))
    return _join(outer, pred, (label,), (_NOTHING,), branches, "if_exp")[0]


def stage_bool_op(pred, if_true, if_false, label):
    """`a and b` / `a or b` with a tensor `a`: a cond evaluating the other operand lazily."""
    return stage_if_exp(pred, if_true, if_false, label)


def _join(outer, pred, names, init, branches, kind, dead=()):
    (g_t, vt), (g_f, vf) = branches
    plans, outs_t, outs_f = [], [], []
    for name, iv, tv, fv in zip(names, init, vt, vf):
        if name in dead or (tv is iv and fv is iv) or (nest.is_nested(iv) and _same_leaves(iv, tv)
                                       and _same_leaves(iv, fv)):
            plans.append(_Const(iv))
            continue
        tv, fv = _resolve_undefined(name, tv, fv, g_t, g_f)
        if is_undefined(tv) and is_undefined(fv):
            plans.append(_Const(tv))
            continue
        tv, fv = tensor_array.allocate_alike(tv, fv, g_t, g_f)
        plans.append(_merge(name, tv, fv, g_t, g_f, outs_t, outs_f))
    stateful = g_t.stateful or g_f.stateful
    if not outs_t and not stateful:
        return tuple(p.build(()) for p in plans)
    g_t.outputs = [(t._node, t._index) for t in outs_t]
    g_f.outputs = [(t._node, t._index) for t in outs_f]
    out_types = control_flow._merge_types("cond", ["true branch", "false branch"],
                                          [outs_t, outs_f])
    # the shared builder links captures and lets an active GradientTape record the node
    results = control_flow.add_branch_node(outer, "cond", pred, (g_t, g_f), out_types,
                                           stateful=stateful)
    return tuple(p.build(results) for p in plans)


def _same_leaves(a, b) -> bool:
    return nest.is_nested(b) and type(a) is type(b) and nest.same_structure(a, b) and all(
        x is y for x, y in zip(nest.flatten(a), nest.flatten(b)))


def _resolve_undefined(name, tv, fv, g_t, g_f):
    tu, fu = is_undefined(tv), is_undefined(fv)
    if tu == fu:
        return tv, fv
    missing = "else" if fu else "main"
    undef, other, g = (fv, tv, g_f) if fu else (tv, fv, g_t)
    if isinstance(undef, UndefinedReturnValue):
        if other is None:
            return None, None
        # TF refuses a cond where only one branch returns, also when a later `return` would
        # cover the other path; a return staged inside a loop (extension) relies on that one
        if not (undef.always and trace_state.enabled(Feature.STAGED_PYTHON_LOOPS)):
            raise ValueError(f"the {missing} branch must also have a return statement.")
        filled = _zeros_like_value(other, g, name)
        return (tv, filled) if fu else (filled, fv)
    raise ValueError(f"'{name}' must also be initialized in the {missing} branch")


def _with_keys_of(before, after, name):
    """A dict loop value `before` with the keys the body first assigns (seen in `after`, the
    probe's result) entering the loop as zeros, as TF's undefined loop values do; and the
    shape invariants for the whole value (None where `before` had the key)."""
    entry = type(before)(before)
    for key in after:
        if key not in before:
            entry[key] = _zeros_like_value(after[key], None, f"{name}[{key!r}]")

    def invariant(value, new):
        return nest.map_structure(lambda leaf: TensorShape.from_tuple(
            _tt_of(_as_tensor(leaf)).shape) if new and _is_tensor_leaf(leaf) else None, value)
    return entry, type(before)((key, invariant(after[key] if key not in before else value,
                                               key not in before))
                               for key, value in entry.items())


def _zeros_like_value(v, g, name):
    """A value of `v`'s structure and types (zeros), built in graph `g`; used where a branch
    or the loop entry has no value yet but its result is never observed."""
    from ..ops import array

    def zero(leaf):
        if _is_tensor_leaf(leaf):
            tt = _tt_of(_as_tensor(leaf)) if not isinstance(leaf, GraphTensor) else leaf._tt
            if tt.shape is None:
                raise NotImplementedError(
                    f"'{name}' has no value on some path and its shape is unknown; "
                    f"define it before the if/loop")
            return array.zeros(tuple(0 if d is None else d for d in tt.shape), tt.dtype)
        if isinstance(leaf, bool):
            return False
        if isinstance(leaf, (int, float, complex)):
            return type(leaf)(0)
        if leaf is None or isinstance(leaf, str):
            return leaf
        raise NotImplementedError(f"'{name}' has no value on some path; define it before "
                                  f"the if/loop")
    if g is None:
        return nest.map_structure(zero, v)
    with func_graph.as_default(g):
        return nest.map_structure(zero, v)


def _in_graph(g, v):
    with func_graph.as_default(g):
        return g.capture(_as_tensor(v))


def _merge(name, tv, fv, g_t, g_f, outs_t, outs_f):
    if nest.is_nested(tv) or nest.is_nested(fv):
        unset = _key_set_on_one_path(name, tv, fv)
        if unset is not None:
            raise ValueError(f"'{unset[0]}' must also be initialized in the {unset[1]} branch")
        if not nest.same_structure(tv, fv):
            if isinstance(tv, list) and isinstance(fv, list) and len(tv) != len(fv):
                raise ValueError(
                    f"list '{name}' has {len(tv)} elements after the main branch but "
                    f"{len(fv)} after the else branch of a tensor-dependent if: its length "
                    f"would depend on a value known only when the function runs. Append in "
                    f"both branches, or append inside a loop (where AutoGraph stages lists)")
            raise TypeError(f"'{name}' must have the same nested structure in the main and "
                            f"else branches:\n\nFirst structure: {tv!r}\n\nSecond structure: "
                            f"{fv!r}")
    leaves = [_merge_leaf(name, a, b, g_t, g_f, outs_t, outs_f)
              for a, b in zip(nest.flatten(tv), nest.flatten(fv))]
    return _NestPlan(tv, leaves)


def _key_set_on_one_path(name, tv, fv):
    """(`name['a']['b']`, the branch lacking it) for the first dict key, at any depth, that
    only one branch sets; None when both set the same keys."""
    if not (isinstance(tv, dict) and isinstance(fv, dict)):
        return None
    for key in tv:
        if key not in fv:
            return f"{name}[{key!r}]", "else"
    for key in fv:
        if key not in tv:
            return f"{name}[{key!r}]", "main"
    for key in tv:
        found = _key_set_on_one_path(f"{name}[{key!r}]", tv[key], fv[key])
        if found is not None:
            return found
    return None


def _merge_leaf(name, a, b, g_t, g_f, outs_t, outs_f):
    if a is b:
        return _Const(a)
    if isinstance(a, TensorList) or isinstance(b, TensorList):
        if not (isinstance(a, TensorList) and isinstance(b, TensorList)):
            other = b if isinstance(a, TensorList) else a
            raise TypeError(f"'{name}' is a staged list in one branch and {_describe(other)} "
                            f"in the other")
        if a.rep == "probe":
            d = None if a.delta is None or b.delta is None else max(a.delta, b.delta)
            return _Const(TensorList.probe(name, a.cell, d))
        if not a.same_layout(b):
            raise TypeError(f"list '{name}' has different layouts in the two branches")
        start = len(outs_t)
        for x, y in zip(a.components(), b.components()):
            outs_t.append(_in_graph(g_t, x))
            outs_f.append(_in_graph(g_f, y))
        return _ListPlan(a, start, a.static_length if a.static_length == b.static_length
                         else None, a.delta if a.delta == b.delta else None)
    if not _is_tensor_leaf(a) and not _is_tensor_leaf(b) and _py_equal(a, b):
        return _Const(a)
    for value, branch in ((a, "main"), (b, "else")):
        if value is None:
            raise ValueError(f"'{name}' is None at the end of the {branch} branch.")
    try:
        ta = _in_graph(g_t, a)
        tb = _in_graph(g_f, b)
    except (TypeError, ValueError):
        raise TypeError(f"'{name}' is {_describe(a)} in the main branch but {_describe(b)} in "
                        f"the else branch; a tensor-dependent if needs tensors of one dtype "
                        f"(or equal Python values) in both") from None
    if ta.dtype is not tb.dtype:
        raise TypeError(f"'{name}' has dtype {ta.dtype.name} in the main branch, but dtype "
                        f"{tb.dtype.name} in the else branch")
    outs_t.append(ta)
    outs_f.append(tb)
    return _Out(len(outs_t) - 1)


# --- staged iterables -------------------------------------------------------------------------
def _static_value(t):
    """The value of a tensor known while tracing (eager, a const node, a captured eager
    tensor, integer arithmetic on static shapes), else None."""
    if isinstance(t, (int, float)) and not isinstance(t, bool):
        return t
    if not isinstance(t, Tensor):
        return None
    if t._value is not None:
        return t.numpy().item() if t.shape.rank == 0 else None
    if t.dtype.is_integer and t.shape.rank == 0:
        return traced_value(t)
    node = getattr(t, "_node", None)
    if node is not None and t._index == 0:
        if node.op == "const":
            v = node.attrs["value"]
            return v.item() if v.ndim == 0 else None
        cap = node.attrs.get("capture") if node.op == "placeholder" else None
        if isinstance(cap, Tensor) and cap._value is not None and cap.shape.rank == 0:
            return cap.numpy().item()
    return None


class _Iterable:
    def count(self):
        """(int32 scalar tensor, Python int or None) trip count, built in the current graph."""
        raise NotImplementedError

    def element(self, i):
        raise NotImplementedError

    def probe_element(self, g):
        raise NotImplementedError


class TensorRange(_Iterable):
    """`range`/`tf.range` with tensor bounds: iterated by a staged loop, never materialized
    unless its bounds are known."""

    def __init__(self, start, limit, delta, dtype):
        self.start, self.limit, self.delta, self.dtype = start, limit, delta, dtype

    @classmethod
    def from_args(cls, args, dtype=None):
        if len(args) == 1:
            start, limit, delta = 0, args[0], 1
        elif len(args) == 2:
            (start, limit), delta = args, 1
        else:
            start, limit, delta = args[:3]
        if dtype is None:
            order = (D.int32, D.int64, D.float32, D.float64)
            dts = []
            for v in (start, limit, delta):
                if isinstance(v, Tensor) or _is_variable(v):
                    dts.append(v.dtype)
                else:
                    dts.append(D.float32 if isinstance(v, float) else D.int32)
            dtype = max(dts, key=lambda d: order.index(d) if d in order else -1)
        return cls(start, limit, delta, D.as_dtype(dtype))

    @classmethod
    def from_node(cls, t):
        """The bounds of `tf.range`'s tensor `t`: its attributes, and for those computed in
        the graph the tensors feeding them."""
        node = t._node
        bounds = dict(node.attrs)
        names = OPS["range"].attr_operands(bounds)
        for name, (src, i) in zip(names, node.inputs):
            bounds[name] = GraphTensor(t._graph, src, i, src.out_types[i])
        return cls(bounds["start"], bounds["limit"], bounds["delta"], bounds["dtype"])

    def _static(self):
        vals = [_static_value(v) for v in (self.start, self.limit, self.delta)]
        return None if any(v is None for v in vals) else vals

    def count(self):
        from ..ops import math
        s = self._static()
        if s is not None:
            start, limit, delta = s
            if delta == 0:
                raise errors.InvalidArgumentError(None, None, "range: delta must not be 0")
            n = max(0, _pymath.ceil((limit - start) / delta))
            return dispatch.convert_to_tensor(n, dtype=D.int32), n
        start, limit, delta = (self._tensor(v) for v in (self.start, self.limit, self.delta))
        if self.dtype.is_integer:
            n = -((start - limit) // delta)
        else:
            n = math.ceil((limit - start) / delta)
        n = math.maximum(math.cast(n, D.int32), 0)
        return n, None

    def _tensor(self, v):
        t = _as_tensor(v) if (isinstance(v, Tensor) or _is_variable(v)) else \
            dispatch.convert_to_tensor(v, dtype=self.dtype)
        if t.dtype is not self.dtype:
            from ..ops.math import cast
            t = cast(t, self.dtype)
        return t

    def element(self, i):
        from ..ops.math import cast
        s = self._static()
        if s is not None and s[0] == 0 and s[2] == 1 and self.dtype is D.int32:
            return i
        x = i if self.dtype is D.int32 else cast(i, self.dtype)
        if s is None or s[2] != 1:
            x = x * self._tensor(self.delta)
        if s is None or s[0] != 0:
            x = x + self._tensor(self.start)
        return x

    def probe_element(self, g):
        return g.placeholder(TT(self.dtype, ()), name="probe_itr")

    def _as_tensor(self):
        from ..ops.array import range as tf_range
        s = self._static() or (self.start, self.limit, self.delta)
        return tf_range(*s, dtype=self.dtype)

    def __len__(self):
        s = self._static()
        if s is None:
            raise TypeError("len() of a tensor range is known only at run time")
        return self.count()[1]


class TensorIter(_Iterable):
    """A tensor iterated over its first dimension."""

    def __init__(self, t):
        self.t = t

    def count(self):
        shape = self.t.shape
        if shape.rank == 0:
            raise TypeError("Cannot iterate over a scalar tensor")
        n = shape.as_tuple()[0] if shape.rank is not None else None
        if n is not None:
            return dispatch.convert_to_tensor(n, dtype=D.int32), n
        from ..ops.array import shape as tf_shape
        return tf_shape(self.t)[0], None

    def element(self, i):
        from ..ops.array import gather
        return gather(self.t, i)

    def probe_element(self, g):
        tt = _tt_of(self.t)
        return g.placeholder(TT(tt.dtype, None if tt.shape is None else tuple(tt.shape[1:])),
                             name="probe_itr")


class Enumerate(_Iterable):
    def __init__(self, inner, start=0):
        self.inner, self.start = inner, start

    def count(self):
        return self.inner.count()

    def element(self, i):
        return (i + self.start if not (isinstance(self.start, int) and self.start == 0) else i,
                self.inner.element(i))

    def probe_element(self, g):
        return (g.placeholder(TT(D.int32, ()), name="probe_index"), self.inner.probe_element(g))


class Zip(_Iterable):
    def __init__(self, inners):
        self.inners = inners

    def count(self):
        from ..ops.math import minimum
        counts = [it.count() for it in self.inners]
        n = counts[0][0]
        for c in counts[1:]:
            n = minimum(n, c[0])
        statics = [c[1] for c in counts]
        return n, (min(statics) if all(s is not None for s in statics) else None)

    def element(self, i):
        return tuple(it.element(i) for it in self.inners)

    def probe_element(self, g):
        return tuple(it.probe_element(g) for it in self.inners)


def as_staged_iterable(x):
    """The staged view of `x` when a `for` over it must be a TensorFlow loop, else None."""
    if isinstance(x, _Iterable):
        return x
    if func_graph.current() is None:
        return None
    if isinstance(x, TensorList):
        return TensorIter(x.stack()) if x.rep != "probe" else _ProbeListIter(x)
    if isinstance(x, GraphTensor):
        if x._node.op == "range":
            return TensorRange.from_node(x)  # iterated from its bounds, never materialized
        return TensorIter(x)
    if isinstance(x, Tensor) or _is_variable(x):
        return TensorIter(_as_tensor(x))
    return None


class _ProbeListIter(_Iterable):
    def __init__(self, lst):
        self.lst = lst

    def count(self):
        g = func_graph.current()
        return g.placeholder(TT(D.int32, ()), name="probe_len"), None

    def probe_element(self, g):
        return self.lst[0]


# --- loops ------------------------------------------------------------------------------------
class _LoopFrame:
    """One staged loop being built: what its body trace found."""

    def __init__(self):
        self.list_deltas: dict = {}


def _static_int(v):
    if v is None:
        return None
    s = _static_value(v) if isinstance(v, Tensor) else v
    return int(s) if isinstance(s, (int, float)) else None


def stage_loop(test, body, get_state, set_state, names, opts, iterable=None, extra_test=None,
               stateful_test=None):
    """A `while` statement (`test`) or a `for` over a staged `iterable`, as one while node.

    `stateful_test`: the first value of a `while` test that reads state (`v.read_value() <
    n`). A while node's condition cannot order state reads after the body's writes, so the
    loop is rotated: the test runs at the end of the body and the condition just reads the
    flag it carries (the test still runs once before each iteration and once at the end)."""
    opts = opts or {}
    if trace_state.probing():
        return _probe_only_loop(body, get_state, set_state, names, opts, iterable)
    construct = "TensorFlow loop" if iterable is not None else "tf.while_loop"
    _lint(opts, f"{construct} body")
    init = list(get_state())
    for name, v in zip(names, init):
        if isinstance(v, UndefinedReturnValue) and not v.always:
            raise NotImplementedError(
                "a return statement inside this TensorFlow loop needs a return on every path "
                "after the loop too: when the loop ends without returning, the function would "
                "return None, and a traced function cannot decide that at run time. Add a "
                "`return` after the loop")
    acc = set(opts.get("accumulators", ()))
    if acc and not lists_staged():
        appended = [n for n, v in zip(names, init) if n in acc and isinstance(v, list)]
        if appended:
            raise inaccessible(appended[0], "loop")
    if iterable is not None:
        n_tensor, n_static = iterable.count()
    else:
        n_tensor, n_static = None, _static_int(opts.get("maximum_iterations"))
    needs_probe = any(is_undefined(v) or v is None or isinstance(v, dict) for v in init) or \
        any(n in acc and isinstance(v, (list, TensorList)) for n, v in zip(names, init)) or \
        tensor_array.has_unallocated(init)
    probe_out, cells, deltas = (None, {}, {})
    if needs_probe:
        try:
            probe_out, cells, deltas = _probe(names, init, acc, get_state, set_state, body,
                                              iterable)
        except UnboundLocalError as e:
            name = getattr(e, "symbol_name", None)
            if name not in names:
                raise
            raise ValueError(f"'{name}' must be defined before the loop\nNote: AutoGraph tried "
                             f"to define it automatically, but ran into a UnboundLocalError: "
                             f"'{name}' is used before assignment") from None
    entry, extra_inv = [], {}
    for k, (name, v) in enumerate(zip(names, init)):
        p = probe_out[k] if probe_out is not None else None
        if name in acc and isinstance(v, list):
            cell = cells.get(name)
            if cell is not None and (cell.tt is not None or v):
                d = deltas.get(name)
                rep = "fixed" if n_static is not None and d is not None else "grow"
                v = TensorList.from_items(name, v, cell.tt, rep,
                                          n_static * d if rep == "fixed" else 0)
        elif name in acc and isinstance(v, TensorList):
            v = _prepare_list(v, n_static, deltas.get(name))
        elif is_undefined(v) or v is None:
            if p is not None and not is_undefined(p):
                zeros = _zeros_like_value(p, None, name)
                extra_inv[k] = nest.map_structure(
                    lambda leaf: TensorShape.from_tuple(_tt_of(_as_tensor(leaf)).shape)
                    if _is_tensor_leaf(leaf) else None, p)
                v = zeros
        elif isinstance(v, dict) and isinstance(p, dict) and not p.keys() <= v.keys():
            v, extra_inv[k] = _with_keys_of(v, p, name)
        elif p is not None:
            v = tensor_array.adopt_element_shapes(v, p)
        entry.append(v)
    spec = _LoopSpec(names, entry, opts.get("shape_invariants"), init, extra_inv)
    frame = _LoopFrame()
    from ..ops import math

    # A trip counter leads the loop values: the index of a `for`, and the count TF's
    # must-iterate-once check needs when the body defines variables.
    counted = iterable is not None or (bool(extra_inv) and not _under_xla())

    def cond_fn(*flat):
        with _region("loop"):
            if stateful_test is not None:
                return flat[-1]
            set_state(spec.unflatten(flat[1:] if counted else flat, frame))
            if iterable is None:
                return _bool_tensor(test(), "a while loop")
            c = math.less(flat[0], n_tensor)
            if extra_test is not None:
                c = math.logical_and(c, _bool_tensor(extra_test(), "the loop"))
            return c

    def body_fn(*flat):
        _ACTIVE_LOOPS.append(frame)
        try:
            with _region("loop"):
                set_state(spec.unflatten(flat[1:] if counted else flat, frame))
                if iterable is not None:
                    body(iterable.element(flat[0]))
                else:
                    body()
                out = spec.flatten_checked(_body_state(get_state), frame)
                if stateful_test is not None:
                    out.append(_bool_tensor(test(), "a while loop"))
                return [flat[0] + 1] + out if counted else out
        finally:
            _ACTIVE_LOOPS.pop()

    flat0 = list(spec.flat)
    invariants = list(spec.invariants)
    if counted:
        flat0 = [dispatch.convert_to_tensor(0, dtype=D.int32)] + flat0
        invariants = [None] + invariants
    if stateful_test is not None:
        flat0.append(_bool_tensor(stateful_test, "a while loop"))
        invariants.append(None)
    inv = [None if s is None else _as_shape(s) for s in invariants]
    outs = control_flow.while_loop(
        cond_fn, body_fn, flat0,
        shape_invariants=inv if any(s is not None for s in inv) else None,
        maximum_iterations=opts.get("maximum_iterations"),
        static_trip_bound=n_static if iterable is not None else None)
    outs = list(outs)
    if counted:
        _assert_iterated(outs[0], n_static if iterable is not None else None,
                         [names[k] for k in extra_inv])
        outs = outs[1:]
    trips = n_static if (iterable is not None and extra_test is None) else None
    set_state(spec.unflatten(outs, None, frame=frame, trips=trips))
    if opts.get("test_assigns"):
        test()   # the test's `:=` targets hold what its last (failing) evaluation gave


def _body_state(get_state):
    """The loop variables after one traced iteration; a `del`eted one cannot be carried."""
    try:
        return get_state()
    except NameError as e:
        raise ValueError(f"'{e.name}' is deleted in the loop body, but the next iteration (or "
                         f"the code after the loop) uses it: a TensorFlow loop must carry "
                         f"a value for it") from None


def _under_xla() -> bool:
    g = func_graph.current()
    while g.outer is not None:
        g = g.outer
    return getattr(g, "jit_compile", False)


def _assert_iterated(trips, n_static, defined_in_body):
    """TF's run-time check that a loop defining variables ran at least once (their values
    before the loop are zeros of the body's types). Under XLA, TF ignores the assert."""
    if not defined_in_body or (n_static or 0) > 0 or _under_xla():
        return
    from ..ops.logging import Assert
    from ..ops.math import greater
    Assert(greater(trips, 0), [f"loop must iterate at least once to initialize "
                               f"{', '.join(defined_in_body)}"])


def _as_shape(s) -> TensorShape:
    return s if isinstance(s, TensorShape) else TensorShape.from_tuple(s)


def _bool_tensor(x, construct):
    if isinstance(x, bool) or x is None:
        return dispatch.convert_to_tensor(bool(x))
    return _pred_tensor(x, construct)


def _prepare_list(lst, n_static, delta):
    """Room for this loop's appends in a staged list that already exists."""
    if lst.rep in ("grow", "probe") or (lst.owner is not None and lst.owner in _ACTIVE_LOOPS):
        return lst     # inside an enclosing loop body: its probe planned the capacity
    if n_static is None or delta is None:
        return lst.as_growing()
    need = n_static * delta
    if lst.static_length is not None and lst.static_length + need <= lst.capacity:
        return lst
    return lst.grown(need)


class _LoopSpec:
    """Loop variables <-> the flat tensor list of the while node."""

    def __init__(self, names, values, user_invariants, originals, extra_inv):
        self.names = list(names)
        self.vars = []
        self.flat = []
        self.invariants = []
        by_id = {}
        for pair in user_invariants or ():
            try:
                t, shape = pair
            except (TypeError, ValueError):
                raise ValueError("set_loop_options: shape_invariants must be a list of "
                                 "(tensor, shape) pairs") from None
            by_id[id(t)] = shape
        matched = set()
        for k, (name, v) in enumerate(zip(names, values)):
            orig_leaves = nest.flatten(originals[k]) if nest.is_nested(originals[k]) or \
                not is_undefined(originals[k]) else []
            if is_undefined(v) or v is None:
                self.vars.append(("const", v))
                continue
            if isinstance(v, TensorList):
                start = len(self.flat)
                self.flat.extend(v.components())
                self.invariants.extend(v.component_invariants())
                self.vars.append(("list", v, start))
                continue
            leaves = nest.flatten(v)
            inv_leaves = nest.flatten(extra_inv[k]) if k in extra_inv else [None] * len(leaves)
            plans = []
            for j, leaf in enumerate(leaves):
                if _is_tensor_leaf(leaf) or isinstance(leaf, (bool, int, float)) and \
                        not isinstance(leaf, TensorList):
                    try:
                        t = _as_tensor(leaf)
                    except (TypeError, ValueError):
                        plans.append(("c", leaf))
                        continue
                    inv = inv_leaves[j].as_tuple() if inv_leaves[j] is not None else None
                    orig = orig_leaves[j] if j < len(orig_leaves) else None
                    if orig is not None and id(orig) in by_id:
                        matched.add(id(orig))
                        # kept a TensorShape: `TensorShape(None)` (unknown rank) is a
                        # real invariant, unlike None (none given)
                        inv = TensorShape(by_id[id(orig)])
                    plans.append(("t", len(self.flat), _tt_of(t)))
                    self.flat.append(t)
                    self.invariants.append(inv)
                else:
                    plans.append(("c", leaf))
            self.vars.append(("nest", v, plans))
        missing = [i for i in by_id if i not in matched]
        if missing:
            raise ValueError(f"set_loop_options: a tensor in shape_invariants is not a loop "
                             f"variable of this loop (loop variables: "
                             f"{', '.join(self.names) or 'none'})")

    def unflatten(self, flat, owner, frame=None, trips=None):
        vals = []
        for name, var in zip(self.names, self.vars):
            kind = var[0]
            if kind == "const":
                vals.append(var[1])
            elif kind == "list":
                tmpl, start = var[1], var[2]
                comps = list(flat[start:start + 2])
                if frame is None:      # inside the loop
                    vals.append(tmpl.rebuild(comps, None, 0, owner))
                else:                  # after the loop
                    d = frame.list_deltas.get(name)
                    known = trips is not None and d is not None
                    static = tmpl.static_length + trips * d if known and \
                        tmpl.static_length is not None else None
                    delta = tmpl.delta + trips * d if known and tmpl.delta is not None else None
                    vals.append(tmpl.rebuild(comps, static, delta, tmpl.owner))
            else:
                leaves = [flat[p[1]] if p[0] == "t" else p[1] for p in var[2]]
                tmpl = var[1]
                vals.append(nest.pack_sequence_as(tmpl, leaves) if nest.is_nested(tmpl)
                            else leaves[0])
        return tuple(vals)

    def flatten_checked(self, outs, frame) -> list:
        flat = [None] * len(self.flat)
        for name, var, out in zip(self.names, self.vars, outs):
            kind = var[0]
            if kind == "const":
                if not (out is var[1] or _py_equal(out, var[1]) or is_undefined(out)):
                    raise TypeError(
                        f"'{name}' is {_describe(var[1])} before the loop, which is not a "
                        f"tensor, and the loop body changes it to {_describe(out)}; a "
                        f"TensorFlow loop can only carry tensors (and nests of them). "
                        f"Initialize '{name}' with a tensor before the loop")
                continue
            if kind == "list":
                tmpl, start = var[1], var[2]
                if not tmpl.same_layout(out):
                    raise TypeError(f"list '{name}' is staged as a tensor list, but after one "
                                    f"iteration it is {_describe(out)}")
                frame.list_deltas[name] = out.delta
                flat[start:start + 2] = out.components()
                continue
            tmpl, plans = var[1], var[2]
            if not nest.same_structure(tmpl, out) or \
                    (nest.is_nested(tmpl) and type(tmpl) is not type(out)
                     and not (isinstance(tmpl, (list, tuple)) and isinstance(out, (list, tuple)))):
                raise TypeError(f"'{name}' does not have the same nested structure after one "
                                f"iteration.\n\nbefore the loop: {tmpl!r}\n\nafter one "
                                f"iteration: {out!r}")
            for p, leaf in zip(plans, nest.flatten(out)):
                if p[0] == "c":
                    if not (leaf is p[1] or _py_equal(leaf, p[1])):
                        raise TypeError(f"'{name}' holds {_describe(p[1])} before the loop, "
                                        f"which is not a tensor, and the loop changes it")
                    continue
                _, idx, tt = p
                flat[idx] = self._check_leaf(name, leaf, tt, self.invariants[idx])
        return flat

    @staticmethod
    def _check_leaf(name, leaf, tt, invariant):
        try:
            if isinstance(leaf, (bool, int, float)) and not isinstance(leaf, bool) or \
                    isinstance(leaf, bool) and tt.dtype is D.bool_:
                t = dispatch.convert_to_tensor(leaf, dtype=tt.dtype)
            else:
                t = _as_tensor(leaf)
        except (TypeError, ValueError) as e:
            raise TypeError(f"'{name}' is a tensor before the loop, but after one iteration "
                            f"it is {_describe(leaf)} ({e})") from None
        if t.dtype is not tt.dtype:
            raise TypeError(f"'{name}' has dtype {tt.dtype.name} before the loop, but dtype "
                            f"{t.dtype.name} after one iteration")
        shape = _tt_of(t).shape
        if invariant is None:
            if not control_flow.is_subshape(shape, tt.shape):
                raise ValueError(f"'{name}' has shape {_shape_str(tt.shape)} before the loop, "
                                 f"but shape {_shape_str(shape)} after one iteration. Use "
                                 f"tf.autograph.experimental.set_loop_options to set shape "
                                 f"invariants.")
        elif not control_flow.is_subshape(shape, _as_shape(invariant).as_tuple()):
            raise ValueError(f"'{name}' has shape {_shape_str(shape)} after one iteration, "
                             f"which does not conform with the shape invariant "
                             f"{_as_shape(invariant)}.")
        return t



# --- probes -----------------------------------------------------------------------------------
def _probe(names, init, acc, get_state, set_state, body, iterable):
    """Trace the body once into a scratch graph: (values it leaves, list cells, appends per
    iteration per list)."""
    outer = func_graph.current()
    g = FuncGraph(f"{outer.name}/probe", outer=outer)
    cells = {}
    trace_state.probe_started()
    try:
        with func_graph.as_default(g), _region("loop"):
            vals = []
            for name, v in zip(names, init):
                if name in acc and isinstance(v, (list, TensorList)):
                    if isinstance(v, TensorList) and v.rep == "probe":
                        cell = v.cell
                    elif isinstance(v, TensorList):
                        cell = ProbeCell(name, TT(v.dtype, v.elem_shape))
                    else:
                        cell = ProbeCell(name, _list_elem_tt(name, v))
                    cells[name] = cell
                    vals.append(TensorList.probe(name, cell, 0))
                else:
                    vals.append(_placeholders(g, v))
            set_state(tuple(vals))
            if iterable is not None:
                body(iterable.probe_element(g))
            else:
                body()
            out = list(_body_state(get_state))
    finally:
        trace_state.probe_ended()
        set_state(tuple(init))
    deltas = {n: o.delta for n, o in zip(names, out) if isinstance(o, TensorList)}
    return out, cells, deltas


def _list_elem_tt(name, items):
    if not items:
        return None
    t = _as_tensor(items[0]) if not isinstance(items[0], Tensor) else items[0]
    return TT(t.dtype, tuple(t.shape.as_tuple()) if t.shape.rank is not None else None)


def _placeholders(g, v):
    def ph(leaf):
        if _is_tensor_leaf(leaf) or isinstance(leaf, (int, float)) and \
                not isinstance(leaf, TensorList):
            try:
                t = _as_tensor(leaf)
            except (TypeError, ValueError):
                return leaf
            return g.placeholder(_tt_of(t), name="probe_var")
        return leaf
    if is_undefined(v) or v is None or isinstance(v, TensorList):
        return v
    return nest.map_structure(ph, v)


def _probe_only_loop(body, get_state, set_state, names, opts, iterable):
    """A loop met while probing an enclosing loop: probe its body, and leave placeholders of
    the types its variables would have (and what its lists would append)."""
    init = list(get_state())
    acc = set(opts.get("accumulators", ()))
    n_static = iterable.count()[1] if iterable is not None else \
        _static_int(opts.get("maximum_iterations"))
    out, _, deltas = _probe(names, init, acc, get_state, set_state, body, iterable)
    g = func_graph.current()
    result = []
    for name, v, o in zip(names, init, out):
        if isinstance(v, TensorList):
            d = deltas.get(name)
            total = None if (v.delta is None or d is None or n_static is None) else \
                v.delta + n_static * d
            result.append(TensorList.probe(name, v.cell, total))
        elif o is v or is_undefined(o) or o is None:
            result.append(v)
        else:
            def ph(a, b=None):
                if not _is_tensor_leaf(a):
                    return a
                tt = _tt_of(_as_tensor(a))
                return g.placeholder(tt, name="probe_out")
            try:
                result.append(nest.map_structure(ph, o))
            except (TypeError, ValueError):
                result.append(o)
    set_state(tuple(result))
