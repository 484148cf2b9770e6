"""`flowjit.extend`: everything a user needs to add an op, a pass or a lowering rule from
their own code (as `jax.extend` is JAX's API for extenders). An op has five facets, each
registered by one decorator; `examples/custom_op.py` shows all of them:

    @register_op("softsign2", inputs=("x",))          # declaration + shape/dtype inference
    def _infer(types, attrs):
        return infer.unary(types, infer.FLOATS)

    @register_kernel("softsign2")                     # NumPy: eager, executor, folding
    def _kernel(x):
        return x / (1 + np.abs(x))

    @register_lowering("softsign2")                   # StableHLO, for jit_compile=True
    def _rule(ctx, op, x):
        return hlo.divide(x, hlo.add(ctx.splat(1, x.type), hlo.abs(x)))

    @register_gradient("softsign2")                   # with flowjit's public ops; integer
                                                      # inputs get None automatically
    def _grad(op, grad):
        (x,) = op.inputs
        return [grad / tf.square(1 + tf.abs(x))]

    softsign2 = op_function("softsign2")              # the API function

`missing_facets("softsign2")` lists what an op still lacks. Passes: `register_pass`
(`after=`/`before=` places one in the default schedule); `DF_OPS[name]` is the df op class of
a registry op, for passes that build ops. Plugins: `load_plugin(path)` and
`load_plugins()` (the `flowjit.plugins` entry points), as `flowjit-opt --load-plugin` does.
"""
from __future__ import annotations

from .frontend import export as _export
from .frontend.eager.dispatch import apply as apply_op, convert_to_tensor
from .frontend.gradients import GRADIENTS as _GRADIENTS
from .frontend.gradients._util import gradient as register_gradient
from .frontend.tools.plugins import load_entry_point_plugins as load_plugins, load_plugin
from .ir import infer
from .ir.registry import OPS as _OPS, TT, InferenceError, op as register_op
from .runtime.kernels import KERNELS as _KERNELS, kernel as register_kernel

__all__ = ["register_op", "register_kernel", "register_lowering", "register_gradient",
           "register_pass", "op_function", "missing_facets", "api_for_op", "api_names", "apply_op", "convert_to_tensor",
           "infer", "TT", "InferenceError", "DF_OPS", "load_plugin", "load_plugins"]



def register_pass(cls=None, *, after: str | None = None, before: str | None = None):
    """Make a ModulePass available by its `name` to pipelines and flowjit-opt; with `after=`
    or `before=` (a pass of the default schedule) it also joins the default schedule there.
    Usable as `@register_pass` or `@register_pass(after="cse")`. (The pass machinery, and
    xDSL under it, load here rather than with flowjit: eager programs never need them.)"""
    from .passes import register_pass as register
    return register(cls, after=after, before=before)


def __getattr__(name):
    if name == "DF_OPS":     # the df dialect is built on first use (see register_pass)
        from .ir.dialect import OP_CLASSES
        return OP_CLASSES
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# op name -> the API function `op_function` made for a user op (the built-in ones are found
# by `api_for_op`).
USER_API: dict = {}


def _exports_in_search_order():
    """(public name, object) for every exported name: the top level first, then the
    namespaces and, within one, the names in alphabetical order."""
    tables = _export.EXPORTS
    _export.exported("")      # loads every exporting module
    for ns in sorted(tables, key=lambda ns: (ns != "", ns)):
        for name in sorted(tables[ns]):
            yield (f"{ns}.{name}" if ns else name), tables[ns][name]


def api_for_op(opname: str):
    """The public name of built-in op `opname`'s API function (`"math.cumprod"`), from the
    export table (`frontend/export.py`): the first exported function, or method of an
    exported class, marked as running the op (`runs`), else the first exported function of
    the op's name. None for an `internal` op (only passes create it); KeyError when there
    is none."""
    if _OPS[opname].internal:
        return None
    by_name = None
    for public, obj in _exports_in_search_order():
        if opname in _export.ops_run_by(obj):
            return public
        if isinstance(obj, type):
            for attr, member in vars(obj).items():   # public methods (operators are not)
                if not attr.startswith("_") and opname in _export.ops_run_by(member):
                    return f"{public}.{attr}"
        if by_name is None and public.rpartition(".")[2] == opname and callable(obj):
            by_name = public
    if by_name is None:
        raise KeyError(f"{opname} has no public API function")
    return by_name


def op_function(opname: str, doc: str | None = None):
    """The API function of a registered op: `fn(*inputs, name=None, **attrs)` converts each
    input to a Tensor, fills in attribute defaults and runs (or, while tracing, records) the
    op; it is the op's API facet."""
    opdef = _OPS[opname]

    def fn(*inputs, name=None, **attrs):
        return apply_op(opname, tuple(convert_to_tensor(x) for x in inputs),
                        opdef.resolve_attrs(attrs))
    fn.__name__ = fn.__qualname__ = opname
    fn.__doc__ = doc or opdef.doc
    USER_API[opname] = fn
    return _export.runs(opname)(fn)


def register_lowering(op):
    """Register a StableHLO lowering rule (`lowering.stablehlo.register_lowering`); the rules,
    and with them jax, load here rather than at `import flowjit`."""
    from .lowering.stablehlo import register_lowering as register
    return register(op)


def missing_facets(opname: str) -> list:
    """The facets op `opname` lacks, by name: "kernel", "lowering", "gradient" (unless
    declared `differentiable=False`), "api" (`api_for_op` finds it, or an `op_function`).
    Empty when the op is complete."""
    from .lowering.stablehlo import RULES
    opdef = _OPS[opname]
    present = {
        "kernel": opname in _KERNELS,
        "lowering": f"df.{opname}" in RULES,
        "gradient": not opdef.differentiable or opname in _GRADIENTS,
        "api": opname in USER_API or _has_api(opname),
    }
    return [facet for facet, ok in present.items() if not ok]


def api_names() -> dict:
    """op name -> `api_for_op` for every built-in op that has a public function."""
    out = {}
    for name in _OPS:
        try:
            out[name] = api_for_op(name)
        except KeyError:
            pass
    return out


def _has_api(opname: str) -> bool:
    try:
        api_for_op(opname)
    except KeyError:
        return False
    return True
