"""The call path of a ConcreteFunction: arguments in, results out.

Binding (an `input_signature`'s checks, the Python values `get_concrete_function` bound),
then the run by the trace's Program (program.py, on its backend), and the results' traced
output structure.
"""
from __future__ import annotations

import numpy as np

from ..eager import dispatch
from .. import nest
from ..composite.base import CompositeSpec
from . import trace_type
from .context import GRADIENT_HOOKS, context
from .specs import TensorSpec
from ..eager.tensor import Tensor

_CTX = context()


def call_flat(cf, flat):
    """Run `cf` on its flat tensor arguments (captures are added by its Program)."""
    if _CTX.tape_hook is not None:  # a GradientTape records: let it see the ops
        out = GRADIENT_HOOKS["call_under_tape"](cf, flat)
        if out is not None:
            return out
    return cf.program.call(flat)


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
    fn = cf.function
    if fn is not None and (kwargs or not fn.positional_only_call or len(args) != len(cf.arg_names)):
        args = fn.bind(args, kwargs)
    flat = []
    try:
        trace_type.key_and_flat(tuple(args), flat)
    except TypeError:
        return None
    if len(flat) != cf.num_args:
        return None
    return [t._value for t in flat] + cf.capture_values


def bind_call(cf, args, kwargs) -> tuple:
    """The full argument tuple of a call: as TF, the Python (non-tensor) values given to
    `get_concrete_function` stay bound, so `cf(x)` works for `(a=TensorSpec, b=2)`."""
    fn = cf.function
    try:
        given = fn.function_spec.bind_partial(*args, **kwargs).arguments
    except TypeError as e:
        raise TypeError(f"ConcreteFunction {cf.name}: {e}") from None
    for name, value in zip(cf.arg_names, cf.args_template):
        if name not in given and _is_python_value(value):
            given[name] = value
    return fn.bind((), given)


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
    if isinstance(spec, CompositeSpec):
        if not spec.is_compatible_with(value):
            raise _binding_error(fname, argname, getattr(value, "_type_spec", value), spec)
        flat.extend(value._components())
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
                     f"{spec!r}`: argument '{argname}' of {fname}()")
