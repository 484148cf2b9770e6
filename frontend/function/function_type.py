"""`ConcreteFunction.function_type` and the signature text TF prints for a trace.

TF's FunctionType is an `inspect.Signature` whose annotations are trace types; flowjit builds
the same from a trace's key, its Python signature, its output structure and its captures, and
renders trace types as TF does: `TensorSpec(...)`, `Literal[2]`, `List[...]`, `Tuple[...]`,
`Dict[['k', ...]]`.
"""
from __future__ import annotations

import inspect

from ...ir import dtypes as D
from .. import nest
from ..composite.base import CompositeKind
from . import trace_type
from .specs import TensorSpec


class TypeText:
    """A trace type shown as TF writes it; used as a parameter or return annotation."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self):
        return self.text

    def __eq__(self, other):
        return isinstance(other, TypeText) and other.text == self.text

    def __hash__(self):
        return hash(self.text)


def _items(texts) -> str:
    return ", ".join(texts)


def key_text(key) -> str:
    """TF's text for one argument's trace type."""
    if key[0] == trace_type.TENSOR:
        return trace_type.describe(key)
    if trace_type.is_container(key):
        kind = key[0]
        if isinstance(kind, CompositeKind):
            return repr(kind)
        if isinstance(kind, tuple):  # dict
            return "Dict[" + _items(f"[{k!r}, {key_text(c)}]" for k, c in zip(kind[1], key[1])) \
                + "]"
        name = "List" if kind is list else "Tuple" if kind is tuple else kind.__name__
        return f"{name}[{_items(key_text(c) for c in key[1])}]"
    if key[0] in ("V", "obj", trace_type.USER):
        return trace_type.describe(key)
    if key[0] == trace_type.LITERAL:
        return f"Literal[{trace_type.literal_value(key)!r}]"
    return f"Literal[{key[1]!r}]"


def output_text(structure, outputs) -> str:
    """TF's text for the output structure (`outputs`: the graph's output tensors)."""
    tag = structure[0]
    if tag == "out":
        t = outputs[structure[1]]
        return repr(TensorSpec(t.shape, t.dtype))
    if tag == "py":
        return f"Literal[{structure[1]!r}]"
    _, template, kind, items = structure
    if kind == nest.MAPPING:
        return "Dict[" + _items(f"[{k!r}, {output_text(s, outputs)}]"
                                for k, s in zip(sorted(template), items)) + "]"
    t = type(template)
    name = "List" if t is list else "Tuple" if t is tuple else t.__name__
    return f"{name}[{_items(output_text(s, outputs) for s in items)}]"


class FunctionType(inspect.Signature):
    """TF's `FunctionType`: parameters annotated with their trace types, the output type as
    the return annotation, and the captures (id -> type)."""

    __slots__ = ("captures",)

    def __init__(self, parameters, output, captures):
        super().__init__(parameters, return_annotation=output)
        self.captures = captures

    @property
    def output(self):
        return self.return_annotation

    def pretty_printed(self) -> str:
        """TF's layout: Input Parameters / Output Type / Captures."""
        lines = ["Input Parameters:"]
        lines += [f"  {p.name} ({p.kind.name}): {p.annotation!r}"
                  for p in self.parameters.values()]
        lines += ["Output Type:", f"  {self.output!r}", "Captures:"]
        lines += [f"  {i}: {t!r}" for i, t in self.captures.items()] or ["  None"]
        return "\n".join(lines)

    __repr__ = pretty_printed


def build(sig: inspect.Signature, key, structure, outputs, captures) -> FunctionType:
    """The FunctionType of one trace. As TF, `*args`/`**kwargs` are left out, and the
    parameters before a `*args` become positional-only."""
    params = list(sig.parameters.values())
    varargs = any(p.kind is p.VAR_POSITIONAL for p in params)
    out = []
    for p, k in zip(params, key[1]):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        kind = p.POSITIONAL_ONLY if varargs and p.kind is p.POSITIONAL_OR_KEYWORD else p.kind
        out.append(inspect.Parameter(p.name, kind, annotation=TypeText(key_text(k))))
    caps = {id(c): TypeText(repr(_capture_spec(c))) for c in captures}
    return FunctionType(out, TypeText(output_text(structure, outputs)), caps)


def _capture_spec(c) -> TensorSpec:
    """A captured tensor's spec; a Variable is captured as its scalar resource handle."""
    return TensorSpec((), D.resource) if hasattr(c, "_handle") else TensorSpec(c.shape, c.dtype)
