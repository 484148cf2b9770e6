"""The runtime operators converted code calls (`ag__.*`).

Each dispatches on the value it gets: a Python value runs plain Python (so a Python `if` or a
loop over a Python list behaves exactly as written, at trace time), a tensor stages the
construct in the graph (staging.py). This module object is what generated code sees as
`ag__`.
"""
from __future__ import annotations

import builtins
import sys

from ...ir import errors
from ..function import func_graph
from ..eager.tensor import Tensor
from . import converter, staging, trace_state
from .features import Feature
from .lists import TensorList, concat_list
from .values import Undefined, UndefinedReturnValue  # noqa: F401  (used by generated code)

__all__ = ["Undefined", "UndefinedReturnValue", "ld", "ret", "if_stmt", "if_exp", "while_stmt",
           "for_stmt", "and_", "or_", "not_", "assert_stmt", "converted_call", "list_append"]


def ld(value):
    """A read of a variable that may be unbound on this path."""
    if isinstance(value, Undefined):
        value.read()
    return value


def ret(retval):
    """The function's return value: None when no `return` ran."""
    return None if isinstance(retval, UndefinedReturnValue) else retval


# --- conditionals -----------------------------------------------------------------------------
def if_stmt(cond, body, orelse, get_state, set_state, names, opts=None):
    if staging.is_symbolic(cond):
        staging.stage_if(cond, body, orelse, get_state, set_state, names, opts)
    elif cond:
        body()
    else:
        orelse()


def if_exp(cond, if_true, if_false, expr_repr):
    if staging.is_symbolic(cond):
        return staging.stage_if_exp(cond, if_true, if_false, expr_repr)
    return if_true() if cond else if_false()


def and_(a_fn, b_fn):
    """`a and b`, lazily: with a tensor `a`, `b` is evaluated inside a cond."""
    a = a_fn()
    if staging.is_symbolic(a):
        return staging.stage_bool_op(a, b_fn, lambda: a, "and")
    return b_fn() if a else a


def or_(a_fn, b_fn):
    a = a_fn()
    if staging.is_symbolic(a):
        return staging.stage_bool_op(a, lambda: a, b_fn, "or")
    return a if a else b_fn()


def not_(a):
    if staging.is_symbolic(a):
        from ..ops.math import logical_not
        return logical_not(a)
    return not a


# --- loops ------------------------------------------------------------------------------------
def while_stmt(test, body, get_state, set_state, names, opts=None):
    """Python iterations while the condition is a Python value; a tensor condition from the
    start stages the loop as one while node. A condition that turns into a tensor later
    raises, as in TF; with `Feature.STAGED_PYTHON_LOOPS` the rest of the loop is staged."""
    opts = opts or {}
    first = True
    g = func_graph.current()
    while True:
        last_stateful = g.last_stateful if g is not None else None
        c = test()
        if staging.is_symbolic(c):
            if not _may_stage(opts, first):
                _refuse_while(opts, first)
            _refuse_staged_return(opts)
            stateful = g.last_stateful is not last_stateful
            staging.stage_loop(test, body, get_state, set_state, names, opts,
                               stateful_test=c if stateful else None)
            return
        if not c:
            return
        first = False
        body()


def for_stmt(iterable, extra_test, body, get_state, set_state, names, opts=None):
    """A for loop: staged over a tensor / tensor range / staged list, plain Python over
    anything else. In a Python loop whose `break`/`return` flag becomes a tensor TF raises;
    with `Feature.STAGED_PYTHON_LOOPS` each later iteration runs inside a cond on it."""
    opts = opts or {}
    # An iterable that stages its own loop in a traced function (tf.data's datasets and
    # iterators: a while loop pulling from an iterator resource).
    staged_for = getattr(iterable, "_autograph_staged_for", None)
    if staged_for is not None and func_graph.current() is not None:
        _refuse_staged_return(opts)
        staged_for(extra_test, body, get_state, set_state, names, opts)
        return
    staged = staging.as_staged_iterable(iterable)
    if staged is not None:
        if not _may_stage(opts, True):
            raise errors.OperatorNotAllowedInGraphError(
                "Iterating over a symbolic `tf.Tensor` is not allowed. AutoGraph does not "
                "convert a `for` loop with an `else:` clause (as TF). Move the `else:` block "
                "after the loop, or enable tf.autograph.experimental.Feature.STAGED_PYTHON_LOOPS")
        _refuse_staged_return(opts)
        staging.stage_loop(None, body, get_state, set_state, names, opts, iterable=staged,
                           extra_test=extra_test)
        return
    for item in iterable:
        if extra_test is not None:
            go = extra_test()
            if staging.is_symbolic(go):
                if not trace_state.enabled(Feature.STAGED_PYTHON_LOOPS):
                    _refuse_tensor_exit(opts)
                staging.stage_if(go, lambda: body(item), lambda: None, get_state, set_state,
                                 names, opts)
                continue
            if not go:
                break
        body(item)


def _may_stage(opts, first: bool) -> bool:
    """TF stages a loop only when its condition or iterable is a tensor from the start, and
    never one with an `else:` clause."""
    return (first and not opts.get("has_else")) or trace_state.enabled(
        Feature.STAGED_PYTHON_LOOPS)


def _refuse_while(opts, first):
    if first:   # a `while ... else:`, which TF leaves unconverted
        raise errors.OperatorNotAllowedInGraphError(
            "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. AutoGraph does "
            "not convert a `while` loop with an `else:` clause (as TF). Move the `else:` block "
            "after the loop, or enable tf.autograph.experimental.Feature.STAGED_PYTHON_LOOPS")
    raise NotImplementedError(
        "The condition of while loop started as non-Tensor, then changed to Tensor. This may "
        "happen either because variables changed type, or when a break or return statement "
        "inside the loop depends on a Tensor condition. In both cases, changing to a TF loop "
        "should remove the error (or enable "
        "tf.autograph.experimental.Feature.STAGED_PYTHON_LOOPS).")


def _refuse_staged_return(opts):
    """TF stages no `return` inside a TensorFlow loop (a tensor condition or iterable);
    `Feature.STAGED_PYTHON_LOOPS` (extension) stops the loop there and returns the value."""
    if "return" in opts.get("jumps", ()) and \
            not trace_state.enabled(Feature.STAGED_PYTHON_LOOPS):
        raise NotImplementedError(
            "a return statement cannot be placed inside this TensorFlow loop; this may happen "
            "if a return statement depends on a static Python condition such as a "
            "hyperparameter")


def _refuse_tensor_exit(opts):
    if "return" in opts.get("jumps", ()):
        # TF meets this as the `if` around the `return`: only one branch returns
        raise ValueError("the else branch must also have a return statement. A "
                         "`return` that depends on a tensor inside "
                         "a Python `for` loop (enable tf.autograph.experimental.Feature."
                         "STAGED_PYTHON_LOOPS to stage it)")
    raise NotImplementedError(
        "break and return statements which depend on a TF condition are not supported in "
        "Python for loops. Did you intend to make it a TF loop? "
        "(or enable tf.autograph.experimental.Feature.STAGED_PYTHON_LOOPS)")


# --- statements and lists ---------------------------------------------------------------------
def assert_stmt(cond, msg_fn):
    """`assert`: with a tensor condition, `tf.Assert` under `Feature.ASSERT_STATEMENTS`, else
    TF's error for a tensor used as a Python bool."""
    if staging.is_symbolic(cond) and trace_state.enabled(Feature.ASSERT_STATEMENTS):
        from ..ops.logging import Assert
        from ..ops.reduce import reduce_all
        msg = msg_fn() if msg_fn is not None else None
        c = cond
        if c.shape.rank:
            c = reduce_all(c)
        data = [msg] if msg is not None else ["Assertion failed"]
        Assert(c, data)
        return None
    if not cond:
        raise AssertionError(msg_fn()) if msg_fn is not None else AssertionError()
    return None


def list_append(lst, x, name="list"):
    """`l.append(x)` rewritten as `l = ag__.list_append(l, x, "l")`."""
    if isinstance(lst, TensorList):
        return lst.append(x)
    if isinstance(lst, list):
        if staging.is_branch_input_list(lst) and staging.is_symbolic(x) and \
                not staging.lists_staged():
            raise staging.inaccessible(name, "branch")
        if staging.in_staged_region():
            # Inside a staged branch or body the list object is shared with the other branch
            # and with the code before: append to a copy, which the staged region returns.
            return lst + [x]
        lst.append(x)
        return lst
    lst.append(x)
    return lst


# --- calls ------------------------------------------------------------------------------------
def converted_call(f, args, kwargs):
    """Call `f`, converting it first when it is user code (cached per function)."""
    kwargs = kwargs or {}
    override = _BUILTINS.get(id(f))
    if override is not None and override[0] is f:
        return override[1](*args, **kwargs)
    special = _flowjit_overrides().get(id(f))
    if special is not None and special[0] is f:
        result = special[1](*args, **kwargs)
        if result is not NotImplemented:
            return result
    if isinstance(f, converter.TRACING_TYPES):
        return f(*args, **kwargs)
    conv = converter.convert(f)
    if conv is None:
        if staging.in_staged_region() and callable(f) and hasattr(f, "__code__"):
            from . import lint
            if converter.is_user_code(f):
                lint.check_unconverted_call(f, trace_state.context(), "staged region")
        return f(*args, **kwargs)
    return conv(*args, **kwargs)


def _any_symbolic(values) -> bool:
    return any(staging.is_symbolic(v) or isinstance(v, TensorList) for v in values)


def print_(*objects, sep=" ", end="\n", file=None, flush=False):
    """`print`: Python's print, run while tracing (once per trace, symbolic tensors shown as
    TF shows them), as in TF. With `Feature.STAGED_PRINT` (a flowjit extension) a print of a
    tensor, or one in a staged region, becomes `tf.print` and prints on every call."""
    if trace_state.probing():
        return None     # a probe is a scratch trace of a loop body; the real one prints
    if trace_state.enabled(Feature.STAGED_PRINT) and func_graph.current() is not None and (
            _any_symbolic(objects) or staging.in_staged_region()):
        from ..ops.logging import print as tf_print
        items = [o._as_tensor() if isinstance(o, TensorList) else o for o in objects]
        tf_print(*items, sep=sep, end=end,
                 output_stream=file if file is not None else sys.stdout)
        return None
    return builtins.print(*objects, sep=sep, end=end, file=file, flush=flush)


def len_(x):
    if isinstance(x, TensorList):
        return x.length_value()
    if isinstance(x, staging.TensorRange):
        n, static = x.count()
        return static if static is not None else n
    if staging.is_symbolic(x):
        shape = x.shape
        if shape.rank == 0:
            raise TypeError("len() of a scalar tensor")
        if shape.rank is not None and shape.as_tuple()[0] is not None:
            return shape.as_tuple()[0]
        from ..ops.array import shape as tf_shape
        return tf_shape(x)[0]
    return builtins.len(x)


def range_(*args):
    if _any_symbolic(args):
        return staging.TensorRange.from_args(args)
    return builtins.range(*args)


def _is_dataset(x) -> bool:
    """A tf.data dataset (it stages its own loop and has `Dataset.enumerate`)."""
    return hasattr(x, "_autograph_staged_for") and hasattr(x, "enumerate")


def enumerate_(iterable, start=0):
    if func_graph.current() is not None and _is_dataset(iterable):
        return iterable.enumerate(start)      # as TF: a dataset stays a dataset
    staged = staging.as_staged_iterable(iterable) if func_graph.current() is not None \
        and (staging.is_symbolic(iterable) or isinstance(iterable, (Tensor, TensorList,
                                                                    staging.TensorRange))) \
        else None
    if staged is not None:
        return staging.Enumerate(staged, start)
    return builtins.enumerate(iterable, start)


def zip_(*iterables):
    if func_graph.current() is not None and iterables and all(map(_is_dataset, iterables)):
        return type(iterables[0]).zip(tuple(iterables))    # as TF: Dataset.zip
    if func_graph.current() is not None and any(
            staging.is_symbolic(i) or isinstance(i, (TensorList, staging.TensorRange,
                                                     staging.Enumerate)) for i in iterables):
        staged = [staging.as_staged_iterable(i) for i in iterables]
        if any(s is None for s in staged):
            raise TypeError("zip() of tensors and Python iterables cannot be staged; convert "
                            "the Python ones to tensors")
        return staging.Zip(staged)
    return builtins.zip(*iterables)


def _cast_builtin(pytype, dtype_name):
    def conv(x=0, *rest):
        if staging.is_symbolic(x) and not rest:
            from ...ir import dtypes as D
            from ..ops.math import cast
            return cast(x, getattr(D, dtype_name))
        return pytype(x, *rest)
    return conv


def _abs(x):
    if staging.is_symbolic(x):
        from ..ops.math import abs as tf_abs
        return tf_abs(x)
    return builtins.abs(x)


_BUILTINS = {id(f): (f, impl) for f, impl in (
    (builtins.print, print_), (builtins.len, len_), (builtins.range, range_),
    (builtins.enumerate, enumerate_), (builtins.zip, zip_),
    (builtins.int, _cast_builtin(int, "int32")), (builtins.float, _cast_builtin(float, "float32")),
    (builtins.abs, _abs))}

_OVERRIDES: dict = {}


def _flowjit_overrides():
    """flowjit functions that need to see staged values before they are converted."""
    if not _OVERRIDES:
        from ..ops import array

        def tf_concat(values, axis, name="concat"):
            if isinstance(values, TensorList):
                return concat_list(values, axis)
            return NotImplemented

        _OVERRIDES.update({id(array.concat): (array.concat, tf_concat)})
    return _OVERRIDES


converter.RUNTIME[0] = sys.modules[__name__]
