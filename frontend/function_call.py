"""The call path of a ConcreteFunction: arguments in, results out.

Binding (an `input_signature`'s checks, the Python values `get_concrete_function` bound),
then the run — the executor Plan, or the XLA executable, found without building a key when the
trace has static shapes — and the results wrapped into the traced output structure. The
classification (static or not, one output or a structure) is done once per ConcreteFunction.
"""
from __future__ import annotations

import numpy as np

from ..ir import errors
from ..lowering import rule_generation
from ..runtime import xla
from . import compilation, dispatch, nest, trace_type
from .specs import TensorSpec
from .tensor import Tensor
from .context import COMPILE_LOCK, context

_CTX = context()


def call_flat(cf, flat):
    """Run `cf` on its flat tensor arguments (captures are added here)."""
    if _CTX.tape_hook is not None:  # a GradientTape records: let it see the ops
        from .gradients.control_flow import call_under_tape
        out = call_under_tape(cf, flat)
        if out is not None:
            return out
    if not cf._jit:
        return _run_plan(cf, flat)
    if cf._sharded_call is not None:   # over a DTensor mesh (frontend/sharded.py)
        return cf._sharded_call(flat)
    bufs = [t._value for t in flat]
    device_array = xla.DEVICE_ARRAY
    for v in bufs:
        if type(v) is not device_array:
            bufs = [_on_device(t) for t in flat]
            break
    exe = cf._static_executable   # a trace with static shapes has one per rule generation
    if exe is None or exe.rule_generation != rule_generation.GENERATION:
        exe = _executable(cf, bufs)
    outs = exe.run(*bufs)
    if xla.SYNCHRONOUS:
        xla.wait(outs)
    dtype = cf._single_output_dtype
    if dtype is not None:
        return Tensor._wrap(outs[0], dtype)
    return rebuild(cf._structure, [Tensor._wrap(v, d) for v, d in zip(outs, cf._out_dtypes)])


def _run_plan(cf, flat):
    plan = cf._plan
    if plan is None:
        with COMPILE_LOCK:
            plan = cf._plan if cf._plan is not None else compilation.build_plan(cf)
    vals = [t._value for t in flat]
    vals += cf._capture_values
    outs = plan.run(vals)
    return rebuild(cf._structure, [Tensor._wrap(v, t.dtype)
                                   for v, t in zip(outs, plan.out_types)])


def _on_device(t):
    """The tensor's value as a device buffer; the copy is kept on the Tensor."""
    v = t._value
    if type(v) is np.ndarray or isinstance(v, np.generic):
        v = t._value = xla.to_device(v)
    return v


def _executable(cf, bufs):
    values = bufs + cf._capture_values
    exe = cf._xla_cache.get(compilation.xla_key(cf, values))
    if exe is None:
        with COMPILE_LOCK:
            exe = compilation.xla_executable(cf, values)
    if cf._static_shapes:
        cf._static_executable = exe
    return exe


def rebuild(structure, outs):
    """The traced output structure with `outs` (the flat results) in place."""
    tag = structure[0]
    if tag == "out":
        return outs[structure[1]]
    if tag == "py":
        return structure[1]
    _, template, kind, items = structure
    return nest.rebuild(template, kind, [rebuild(s, outs) for s in items])


# --- binding --------------------------------------------------------------------------------
def concrete_values(cf, args, kwargs):
    """Raw argument values for XLA stages, or None when any argument is symbolic."""
    fn = cf._function
    if fn is not None and (kwargs or not fn._simple or len(args) != len(cf._arg_names)):
        args = fn._bind(args, kwargs)
    flat = []
    try:
        trace_type.key_and_flat(tuple(args), flat)
    except TypeError:
        return None
    if len(flat) != cf._num_args:
        return None
    return [t._value for t in flat] + cf._capture_values


def bind_call(cf, args, kwargs) -> tuple:
    """The full argument tuple of a call: as TF, the Python (non-tensor) values given to
    `get_concrete_function` stay bound, so `cf(x)` works for `(a=TensorSpec, b=2)`."""
    fn = cf._function
    try:
        given = fn._sig.bind_partial(*args, **kwargs).arguments
    except TypeError as e:
        raise TypeError(f"ConcreteFunction {cf._name}: {e}") from None
    for name, value in zip(cf._arg_names, cf._args_template):
        if name not in given and _is_python_value(value):
            given[name] = value
    return fn._bind((), given)


def _is_python_value(value) -> bool:
    """True for an argument that holds no tensor or spec (get_concrete_function binds it)."""
    return not any(isinstance(v, (Tensor, TensorSpec, np.ndarray)) for v in nest.flatten(value))


def match_spec(fname, argname, spec, value, flat):
    """Check `value` against `spec` (nested) and collect its tensors, converting Python values
    to the spec's dtype as TF does."""
    if isinstance(spec, TensorSpec):
        if hasattr(value, "_as_tensor") and not isinstance(value, Tensor):
            value = value._as_tensor()
        try:
            t = dispatch.convert_to_tensor(value, dtype=spec.dtype)
        except (TypeError, ValueError):
            got = TensorSpec(value.shape, value.dtype) if isinstance(value, Tensor) else value
            raise _binding_error(fname, argname, got, spec) from None
        if not spec.shape.is_compatible_with(t.shape):
            raise _binding_error(fname, argname, TensorSpec(t.shape, t.dtype), spec)
        flat.append(t)
        return
    if isinstance(spec, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(spec):
            raise TypeError(f"{fname}(): argument '{argname}' must be a sequence of "
                            f"{len(spec)} matching {spec}, got {value!r}")
        for i, (s, v) in enumerate(zip(spec, value)):
            match_spec(fname, f"{argname}[{i}]", s, v, flat)
        return
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            raise TypeError(f"{fname}(): argument '{argname}' must be a dict with keys "
                            f"{sorted(spec)}")
        for k in sorted(spec, key=repr):
            match_spec(fname, f"{argname}[{k!r}]", spec[k], value[k], flat)
        return
    raise TypeError(f"{fname}(): input_signature entries must be TensorSpecs (or nests of "
                    f"them), got {spec!r}")


def _binding_error(fname, argname, got, spec) -> TypeError:
    """TF's error (class and leading text) for an argument its input_signature rejects."""
    return TypeError(f"Binding inputs to tf.function failed due to `Can not cast {got!r} to "
                     f"{spec!r}`: argument '{argname}' of {fname}() [at {errors.user_frame()}]")
