"""TF's `tf.strings`: string tensors' elementwise transforms, conversions and joins."""
from __future__ import annotations

from ...ir import dtypes as D
from ..eager.dispatch import apply, convert_to_tensor
from ..export import runs, tf_export
from ..eager.tensor import Tensor
from ..composite.ragged_tensor import RaggedTensor
from .array import concat, size, stack, unstack
from .axes import axes_attr as _axes


def _string(x):
    """A string op's operand: Python values must be strings (TF's TypeError otherwise);
    a tensor of another dtype reaches the op, whose inference names it."""
    if isinstance(x, Tensor) or hasattr(x, "_as_tensor"):
        return convert_to_tensor(x)
    return convert_to_tensor(x, dtype=D.string)


@tf_export("strings.length")
@runs("string_length")
def length(input, unit="BYTE", name=None):  # noqa: A002  (TF's argument names)
    """The length of each string in bytes, or in UTF-8 characters (`unit="UTF8_CHAR"`)."""
    return apply("string_length", (_string(input),), {"unit": unit})


@tf_export("strings.upper")
@runs("string_upper")
def upper(input, encoding="", name=None):  # noqa: A002
    """Upper case: ASCII letters only, every letter with `encoding="utf-8"`."""
    return apply("string_upper", (_string(input),), {"encoding": encoding})


@tf_export("strings.lower")
@runs("string_lower")
def lower(input, encoding="", name=None):  # noqa: A002
    """Lower case: ASCII letters only, every letter with `encoding="utf-8"`."""
    return apply("string_lower", (_string(input),), {"encoding": encoding})


@tf_export("strings.strip")
@runs("string_strip")
def strip(input, name=None):  # noqa: A002
    """Leading and trailing ASCII whitespace removed."""
    return apply("string_strip", (_string(input),))


@tf_export("strings.regex_full_match")
def regex_full_match(input, pattern, name=None):  # noqa: A002
    """Whether each whole string matches `pattern` (RE2 syntax, as TF: linear-time matching;
    backreferences and lookaround are InvalidArgumentError)."""
    return apply("regex_full_match", (_string(input),), {"pattern": str(pattern)})


@tf_export("strings.join")
@runs("string_join")
def join(inputs, separator="", name=None):
    """Elementwise concatenation of the inputs with `separator` between them."""
    return apply("string_join", tuple(_string(x) for x in inputs), {"separator": separator})


@tf_export("strings.reduce_join")
def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """Concatenation along `axis` (all axes when None) with `separator` between elements."""
    return apply("reduce_join", (_string(inputs),),
                 {"axis": _axes(axis, "reduce_join"), "keepdims": bool(keepdims),
                  "separator": separator})


@tf_export("strings.split")
@runs("string_split")
def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002
    """A scalar splits into a 1-D tensor of its pieces (on runs of whitespace when `sep` is
    None); a vector into a RaggedTensor, one row of pieces per string."""
    x = _string(input)
    if x.shape.rank is None or x.shape.rank > 1 or (x.shape.rank == 1 and x.shape[0] is None):
        raise ValueError(f"strings.split: flowjit splits a scalar or a vector of known "
                         f"length, got shape {x.shape}")
    attrs = {"sep": sep or "", "maxsplit": int(maxsplit)}
    if x.shape.rank == 0:
        return apply("string_split", (x,), attrs)
    return ragged_rows([apply("string_split", (s,), attrs) for s in unstack(x)], D.string)


def ragged_rows(rows, dtype):
    """A RaggedTensor of the 1-D tensors `rows` (of `dtype`), one row each."""
    if not rows:
        return RaggedTensor.from_row_lengths(convert_to_tensor([], dtype=dtype), [])
    return RaggedTensor.from_row_lengths(concat(rows, 0), stack([size(r, D.int64) for r in rows]))


@tf_export("strings.format")
@runs("string_format")
def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001
    """The template with each placeholder replaced by the next input, formatted as
    `tf.print` formats tensors (strings inside quotes)."""
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    return apply("string_format", tuple(convert_to_tensor(x) for x in inputs),
                 {"template": template, "placeholder": placeholder,
                  "summarize": -1 if summarize is None else int(summarize)})


@tf_export("strings.as_string", "as_string")
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1,  # noqa: A002
              fill="", name=None):
    """Each element as text: `%f`-style floats (`%e` when scientific, `%g` when shortest),
    integers, `true`/`false`; `width` pads with `fill` (spaces by default)."""
    return apply("as_string", (convert_to_tensor(input),),
                 {"precision": int(precision), "scientific": bool(scientific),
                  "shortest": bool(shortest), "width": int(width), "fill": fill})


@tf_export("strings.to_number")
@runs("string_to_number")
def to_number(input, out_type=D.float32, name=None):  # noqa: A002
    """Each string parsed as a number of `out_type` (float32, float64, int32 or int64)."""
    return apply("string_to_number", (_string(input),), {"out_type": D.as_dtype(out_type)})


@tf_export("strings.substr")
def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002
    """`len` bytes (or UTF-8 characters) of each string from `pos`; a negative pos counts
    from the end. pos and len are scalars or have the input's shape."""
    x = _string(input)
    p = convert_to_tensor(pos)
    return apply("substr", (x, p, convert_to_tensor(len, dtype=p.dtype) if not isinstance(
        len, Tensor) else len), {"unit": unit})
