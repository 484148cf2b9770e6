"""`tf.py_function` and `tf.numpy_function`: a Python function as one op of the graph.

Eagerly and on the graph executor the op calls the function with eager Tensors
(`py_function`) or NumPy arrays (`numpy_function`) and converts what it returns to `Tout`
as TF does (a result that does not convert raises InvalidArgumentError; an exception in the
function raises UnknownError naming it). `py_function` is differentiable: its gradient is
another `py_function` that runs the function again under a GradientTape, as TF's. Under
`jit_compile=True` both are refused while tracing (TF's InvalidArgumentError).
"""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ...runtime.kernels.script import FUNCTIONS, register_function
from ..eager import dispatch
from ..function import func_graph
from ..function.context import context
from ..eager.dispatch import apply, convert_to_tensor
from ..export import tf_export
from ..eager.tensor import Tensor

# py_function token -> the user's function (the gradient runs it again).
USER_FUNCTIONS: dict = {}
EAGER_TOKEN = "pyfunc_eager"


def _dtypes(Tout):
    single = not isinstance(Tout, (list, tuple))
    return single, tuple(D.as_dtype(t) for t in ([Tout] if single else Tout))


def _as_arrays(result, single, dtypes, opname, eager_tensors):
    """The function's result as one array per `Tout` entry, with TF's conversion checks."""
    # as TF, a list Tout takes one value that is not a list as its only result
    if single or not isinstance(result, (list, tuple)) and (result is not None or dtypes):
        values = [result]
    else:
        values = [] if result is None else list(result)
    if len(values) != len(dtypes):
        raise errors.InvalidArgumentError(None, opname, f"{opname} returned {len(values)} "
                                          f"values, but Tout has {len(dtypes)}")
    out = []
    for i, (v, dt) in enumerate(zip(values, dtypes)):
        if eager_tensors:
            try:   # (a scalar string's numpy() is bare bytes; kernels pass arrays)
                out.append(np.asarray(convert_to_tensor(v, dtype=dt).numpy(),
                                      object if dt is D.string else None))
            except (TypeError, ValueError) as e:
                raise errors.InvalidArgumentError(None, opname,
                                                  f"{type(e).__name__}: {e}") from None
            continue
        a = np.asarray(v)
        if a.dtype != dt.np:
            raise errors.InvalidArgumentError(
                None, opname, f"{i}-th value returned by {opname} is {D.from_numpy(a.dtype).name}"
                f", but expects {dt.name}")
        out.append(a)
    return out


def _wrap(func, single, dtypes, opname, eager_tensors):
    def call(*arrays):
        args = [Tensor(a) for a in arrays] if eager_tensors else list(arrays)
        try:
            result = func(*args)
        except errors.OpError:
            raise
        except Exception as e:  # TF reports any exception of the function as UnknownError
            raise errors.UnknownError(None, opname, f"{type(e).__name__}: {e}") from e
        return _as_arrays(result, single, dtypes, opname, eager_tensors)
    return call


def _script_op(opname, func, inp, Tout, eager_tensors):
    if not callable(func):
        raise TypeError(f"{opname}: func must be callable, got {func!r}")
    g = func_graph.current()
    if g is not None:
        from ..control.control_flow import root_graph
        if getattr(root_graph(g), "jit_compile", False):
            from ...lowering.stablehlo.script import refuse
            raise refuse(opname, errors.user_frame())
    single, dtypes = _dtypes(Tout)
    inputs = tuple(convert_to_tensor(x) for x in (inp or ()))
    call = _wrap(func, single, dtypes, opname, eager_tensors)
    if g is None and context().tape_hook is None:
        # An eager call that nothing records runs at once: one reused token keeps the
        # registry from growing and eager dispatch's inference cache hitting.
        FUNCTIONS[EAGER_TOKEN] = call
        token = EAGER_TOKEN
    else:
        token = register_function(call)
        if eager_tensors:
            USER_FUNCTIONS[token] = func
    outs = apply(opname, inputs, {"func": token, "Tout": dtypes})
    outs = [outs] if isinstance(outs, Tensor) else list(outs or ())
    return outs[0] if single else outs


@tf_export("py_function")
def py_function(func=None, inp=None, Tout=None, name=None):
    """Call `func(*eager tensors)` as an op; results converted to `Tout`."""
    return _script_op("py_function", func, inp, Tout, True)


@tf_export("numpy_function")
def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """Call `func(*NumPy arrays)` as an op; results must have the dtypes of `Tout`."""
    return _script_op("numpy_function", func, inp, Tout, False)


def gradient_call(op, upstream):
    """The gradient of a recorded `py_function`: a `py_function` that replays the user's
    function on its inputs under a GradientTape and pulls `upstream` back."""
    func = USER_FUNCTIONS[op.attrs["func"]]
    xs = list(op.inputs)
    n = len(xs)
    from ..gradients.tape import GradientTape

    def replay(*args):
        sources = list(args[:n])
        with GradientTape() as tape:
            for s in sources:
                tape.watch(s)
            ys = func(*sources)
        ys = ys if isinstance(ys, (list, tuple)) else [ys]
        grads = tape.gradient(list(ys), sources, output_gradients=list(args[n:]))
        return [np.zeros(s.shape.as_tuple(), s.dtype.np) if g is None else g
                for g, s in zip(grads, sources)]

    return py_function(replay, xs + list(upstream), [x.dtype for x in xs])


