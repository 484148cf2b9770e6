"""Op declarations: fused family, internal ops that the `remapper` pass creates (Grappler's
_FusedMatMul / _FusedConv2D). No public API produces them.

    fused_matmul(a, b, bias)        = act(matmul(a, b) + bias)        bias: [n], the last axis
    fused_conv2d(input, f, bias)    = act(conv2d(input, f) + bias)    bias: [c], the channel axis

Each step is computed exactly as the unfused ops compute it (the kernels and lowering rules
call the unfused ones in turn), so fusing never changes a result. `activation` names an entry
of ACTIVATIONS ("" for none); `alpha` is leaky_relu's slope. Gradients are applied before the
passes run, so these ops need none (differentiable=False).
"""
from __future__ import annotations

from ..registry import OPS, TT, InferenceError, op
from .nn import CONV_ATTRS, spatial_axes

# activation name -> (registry op, its attributes); "alpha" is filled from the fused op.
ACTIVATIONS = {
    "": None,
    "relu": ("relu", {}),
    "relu6": ("relu6", {}),
    "elu": ("elu", {}),
    "selu": ("selu", {}),
    "leaky_relu": ("leaky_relu", {"alpha": None}),
    "gelu": ("gelu", {"approximate": False}),
    "gelu_approximate": ("gelu", {"approximate": True}),
    "tanh": ("tanh", {}),
    "sigmoid": ("sigmoid", {}),
}
ACT_ATTRS = (("activation", "str", ""), ("alpha", "float", 0.2))
MATMUL_ATTRS = (("transpose_a", "bool", False), ("transpose_b", "bool", False),
                ("output_type", "dtype", None))


def activation_op(activation: str, alpha: float):
    """(registry op name, attributes) of a fused activation, or None for no activation.
    An absent attribute (None, as df ops carry omitted attributes) means its default."""
    try:
        entry = ACTIVATIONS[activation or ""]
    except KeyError:
        raise InferenceError(f"unknown fused activation {activation!r}; known: "
                             f"{sorted(a for a in ACTIVATIONS if a)}") from None
    if entry is None:
        return None
    name, attrs = entry
    alpha = ACT_ATTRS[1][2] if alpha is None else float(alpha)
    return name, {k: (alpha if v is None else v) for k, v in attrs.items()}


def activation_of(opname: str, attrs: dict):
    """The inverse: (activation, alpha) of an activation op, or None if it cannot be fused."""
    for act, entry in ACTIVATIONS.items():
        if entry is None or entry[0] != opname:
            continue
        fixed = entry[1]
        if all(v is None or attrs.get(k) == v for k, v in fixed.items()):
            alpha = attrs.get("alpha") if "alpha" in fixed else None
            return act, ACT_ATTRS[1][2] if alpha is None else float(alpha)
    return None


def _split(attrs, names):
    return {k: attrs[k] for k in names}


def _with_bias_and_activation(out: TT, bias: TT, axis, attrs) -> TT:
    if bias.dtype is not out.dtype:
        raise InferenceError(f"bias has dtype {bias.dtype.name}, the result {out.dtype.name}")
    if bias.shape is not None and len(bias.shape) != 1:
        raise InferenceError(f"bias must be 1-D, got shape {list(bias.shape)}")
    if out.shape is not None and bias.shape is not None:
        c, b = out.shape[axis], bias.shape[0]
        if c is not None and b is not None and c != b:
            raise InferenceError(f"bias has {b} elements for {c} channels "
                                 f"(result shape {list(out.shape)})")
    act = activation_op(attrs["activation"], attrs["alpha"])
    if act is not None:
        OPS[act[0]].infer([out], act[1])  # the activation's own dtype checks
    return out


# Only the remapper pass creates fused ops (after tracing and differentiation): they have no
# public API and no gradient.
@op("fused_matmul", ("a", "b", "bias"), attrs=MATMUL_ATTRS + ACT_ATTRS, differentiable=False,
    internal=True)
def _fused_matmul(types, attrs):
    """act(matmul(a, b) + bias): bias is 1-D along the last axis of the product."""
    out = OPS["matmul"].infer(types[:2], _split(attrs, ("transpose_a", "transpose_b",
                                                        "output_type")))
    return _with_bias_and_activation(out, types[2], -1, attrs)


@op("fused_conv2d", ("input", "filters", "bias"), attrs=CONV_ATTRS + ACT_ATTRS,
    differentiable=False, internal=True)
def _fused_conv2d(types, attrs):
    """act(conv2d(input, filters) + bias): bias is 1-D along the convolution's channel axis
    (the last for NHWC, the third from last for NCHW)."""
    out = OPS["conv2d"].infer(types[:2], _split(attrs, [a[0] for a in CONV_ATTRS]))
    axis = None if out.shape is None else spatial_axes(attrs["data_format"], len(out.shape))[1]
    return _with_bias_and_activation(out, types[2], axis, attrs)
