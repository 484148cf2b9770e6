"""String ops (`tf.strings`): elementwise transforms of `string` tensors, conversions to and
from numbers, joins and the scalar split. None is differentiable, and XLA has no string type,
so every one runs only eagerly and in the graph executor."""
from __future__ import annotations

from .. import dtypes as D
from ..errors import InvalidArgumentError
from ..infer import INDEX, NUMERIC, TT, broadcast, broadcast_all, check_dtype, reduce_shape
from ..regex import compile_regex
from ..registry import InferenceError, check_bytes, op
from .logging import placeholder_count

UNITS = ("BYTE", "UTF8_CHAR")
NUMBER_TYPES = (D.float32, D.float64, D.int32, D.int64)


def check_string(t: TT, i: int, opname: str) -> None:
    """TF's text for a non-string input of a string op."""
    if t.dtype is not D.string:
        raise InferenceError(f"cannot compute {opname} as input #{i}(zero-based) was expected "
                             f"to be a string tensor but is a {t.dtype.name} tensor")


def _check_choice(attrs, name, allowed) -> None:
    if attrs[name] not in allowed:
        raise InferenceError(f"Value for attr '{name}' of \"{attrs[name]}\" is not in the "
                             f"list of allowed values: "
                             + ", ".join(f'"{a}"' for a in allowed))


def _elementwise(tf_name, result=D.string, unit=False):
    def infer(types, attrs):
        check_string(types[0], 0, tf_name)
        if unit:
            _check_choice(attrs, "unit", UNITS)
        return TT(result, types[0].shape)
    return infer


op("string_length", ("input",), attrs=(("unit", "str", "BYTE"),), differentiable=False)(
    _elementwise("StringLength", D.int32, unit=True))
op("string_upper", ("input",), attrs=(("encoding", "str", ""),), differentiable=False)(
    _elementwise("StringUpper"))
op("string_lower", ("input",), attrs=(("encoding", "str", ""),), differentiable=False)(
    _elementwise("StringLower"))
op("string_strip", ("input",), differentiable=False)(_elementwise("StringStrip"))


@op("regex_full_match", ("input",), attrs=(("pattern", "str"),), differentiable=False)
def _regex_full_match(types, attrs):
    """Whether each whole string matches `pattern` (RE2 syntax, as TF)."""
    check_string(types[0], 0, "StaticRegexFullMatch")
    try:
        compile_regex(attrs["pattern"])
    except InvalidArgumentError as e:
        raise InferenceError(e.message) from None
    return TT(D.bool_, types[0].shape)


@op("string_join", ("inputs*",), attrs=(("separator", "str", ""),), differentiable=False)
def _string_join(types, attrs):
    """Joins the inputs elementwise; scalars broadcast, other shapes must be equal."""
    known = None
    for i, t in enumerate(types):
        check_string(t, i, "StringJoin")
        if t.shape and None not in t.shape:
            if known is not None and t.shape != known:
                raise InferenceError(f"Input shapes do not match: {list(known)} vs. "
                                     f"{list(t.shape)}")
            known = t.shape
    return TT(D.string, broadcast_all([t.shape for t in types]))


@op("string_split", ("input",), attrs=(("sep", "str", ""), ("maxsplit", "int", -1)),
    differentiable=False)
def _string_split(types, attrs):
    """Splits one string into its pieces (a vector whose length depends on the data)."""
    check_string(types[0], 0, "StringSplit")
    if types[0].shape is not None and types[0].shape != ():
        raise InferenceError(f"string_split takes a scalar, got shape {list(types[0].shape)}")
    return TT(D.string, (None,))


@op("string_format", ("inputs*",), attrs=(("template", "str"), ("placeholder", "str", "{}"),
                                          ("summarize", "int", 3)), differentiable=False)
def _string_format(types, attrs):
    """The template with each placeholder replaced by the next input, formatted as tf.print."""
    slots = placeholder_count(attrs["template"], attrs["placeholder"])
    if slots != len(types):
        raise InferenceError(f"The template expects {slots} tensors, but the inputs only has "
                             f"{len(types)}. Please ensure the number of placeholders in "
                             f"template matches inputs length.", ValueError)
    return TT(D.string, ())


@op("as_string", ("input",), attrs=(("precision", "int", -1), ("scientific", "bool", False),
                                    ("shortest", "bool", False), ("width", "int", -1),
                                    ("fill", "str", "")), differentiable=False)
def _as_string(types, attrs):
    """Each element as text, printf-style (`%f`, `%e` or `%g` for floats, `%d` for ints)."""
    check_dtype(types[0], NUMERIC + (D.bool_, D.string))
    if attrs["scientific"] and attrs["shortest"]:
        raise InferenceError("Cannot select both scientific and shortest notation")
    if attrs["precision"] > -1 and types[0].dtype not in D.FLOATS:
        raise InferenceError(f"precision not supported for datatype {types[0].dtype.name}")
    if len(attrs["fill"]) > 1:
        raise InferenceError(f"Fill string must be one or fewer characters: {attrs['fill']}")
    if attrs["fill"] and attrs["fill"] not in PRINTF_FLAGS:  # the fill is a printf flag
        raise InferenceError(f"Fill argument not supported: \"{attrs['fill']}\"")
    width = attrs["width"]
    if not -2**31 <= width < 2**31:
        raise InferenceError(f"Attr width has value {width} out of range for an int32")
    shape = types[0].shape
    if width > 0 and shape is not None and None not in shape:
        check_bytes(shape, width)  # every element padded to `width` characters
    return TT(D.string, shape)


PRINTF_FLAGS = (" ", "+", "-", "0", "#")


@op("string_to_number", ("string_tensor",), attrs=(("out_type", "dtype", D.float32),),
    differentiable=False)
def _string_to_number(types, attrs):
    check_string(types[0], 0, "StringToNumber")
    out = D.as_dtype(attrs["out_type"])
    if out not in NUMBER_TYPES:
        raise InferenceError(f"Value for attr 'out_type' of {out.name} is not in the list of "
                             f"allowed values: float, double, int32, int64")
    return TT(out, types[0].shape)


@op("substr", ("input", "pos", "len"), attrs=(("unit", "str", "BYTE"),), differentiable=False)
def _substr(types, attrs):
    """`len` units of each string from `pos` (negative: from the end); pos and len are
    scalars or have the input's shape."""
    x, pos, length = types
    check_string(x, 0, "Substr")
    _check_choice(attrs, "unit", UNITS)
    check_dtype(pos, INDEX, "pos")
    if length.dtype is not pos.dtype:
        raise InferenceError(f"pos and len must have the same dtype, got {pos.dtype.name} and "
                             f"{length.dtype.name}")
    return TT(D.string, broadcast(broadcast(x.shape, pos.shape), length.shape))


@op("reduce_join", ("inputs",), attrs=(("axis", "ints", None), ("keepdims", "bool", False),
                                       ("separator", "str", "")), differentiable=False)
def _reduce_join(types, attrs):
    check_string(types[0], 0, "ReduceJoin")
    return TT(D.string, reduce_shape(types[0].shape, attrs["axis"], attrs["keepdims"]))
