"""Print and parse `df` modules as MLIR text (locations included, `loc(unknown)` dropped)."""
from __future__ import annotations

import functools
import io

from xdsl.printer import Printer


def print_module(module, debuginfo: bool = True) -> str:
    out = io.StringIO()
    Printer(stream=out, print_debuginfo=debuginfo).print_op(module)
    return out.getvalue().replace(" loc(unknown)", "") + "\n"


@functools.cache
def _patch_parser():
    # xDSL rebuilds a type constraint for every dense literal it parses; caching `base`
    # (a pure function of its argument) makes parsing dumps several times faster.
    import re

    from xdsl.parser import attribute_parser
    from xdsl.utils.mlir_lexer import MLIRLexer
    attribute_parser.base = functools.lru_cache(None)(attribute_parser.base)
    # xDSL 0.75 lexes string literals with `"(?:[^"\\...]+|\\...)*"`: a `+` inside a `*`
    # over the same characters backtracks exponentially when the closing quote is missing,
    # so one stray `"` in a long line hangs the parser. The same language, unrolled:
    MLIRLexer._unescaped_characters_regex = re.compile(
        r'"[^"\\\n\v\f]*(?:\\(?:["nt\\]|[0-9A-Fa-f]{2})[^"\\\n\v\f]*)*"')
    attribute_parser.AttrParser.parse_dense_int_or_fp_elements_attr = _parse_dense
    _scope_regions_without_copies()


class _ScopedValues(dict):
    """The parser's SSA names, remembering the order they were defined in. xDSL 0.75 copies
    the whole table on entering each region and puts the copy back on leaving, which makes
    many sibling regions quadratic; here entering costs nothing (`copy` is the table itself)
    and leaving deletes the names the region defined (which cannot shadow outer names: a
    redefinition is a parse error)."""

    def __init__(self, *args):
        super().__init__(*args)
        self.defined: list = []

    def __setitem__(self, name, values):
        super().__setitem__(name, values)
        self.defined.append(name)

    def copy(self):
        return self


def _scope_regions_without_copies():
    from xdsl.parser import Parser
    parse_region = Parser.parse_optional_region

    @functools.wraps(parse_region)
    def scoped(self, arguments=None):
        if type(self.ssa_values) is not _ScopedValues:
            self.ssa_values = _ScopedValues(self.ssa_values)
        values = self.ssa_values
        mark = len(values.defined)
        region = parse_region(self, arguments)
        for name in values.defined[mark:]:
            values.pop(name, None)
        del values.defined[mark:]
        return region
    Parser.parse_optional_region = scoped


def _parse_dense(self, type):
    """xDSL's `dense<...>` parser, except that a splat (one element for a whole tensor type,
    `dense<2.0> : tensor<10000000xf32>`) keeps its one element instead of a copy per element
    of the type: readers of the attribute (`ir/constants.py`, `dialect.decode_attr`, the
    lowering) see a splat as raw bytes of one element and broadcast it."""
    import math

    from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, TensorType

    self.parse_punctuation("<", " in dense attribute")
    literal = hex_text = None
    if self.parse_optional_punctuation(">") is None:
        hex_text = self.parse_optional_str_literal()
        if hex_text is None:
            literal = self._parse_tensor_literal()
        self.parse_punctuation(">", " in dense attribute")
    if type is None:
        self.parse_punctuation(":", " in dense attribute")
        type = self._parse_dense_literal_type()
    shape = list(type.get_shape())
    count = math.prod(shape)
    element = type.element_type
    if hex_text is not None:
        try:
            raw = bytes.fromhex(hex_text[2:])
        except ValueError:
            self.raise_error("Hex string in denseAttr is invalid")
        if len(raw) not in (element.compile_time_size, count * element.compile_time_size):
            self.raise_error(f"Shape mismatch in dense literal. Expected {count} elements "
                             f"from the type, but got {len(raw) // element.compile_time_size} "
                             f"elements.")
        return DenseIntOrFPElementsAttr(type, BytesAttr(raw))
    if literal is None:
        if count != 0:
            self.raise_error("Expected at least one element in the dense literal, but got None")
        return DenseIntOrFPElementsAttr.from_list(type, [])
    elements, literal_shape = literal
    values = [e.to_type(self, element) for e in elements]
    if literal_shape and literal_shape != shape:
        self.raise_error(f"Shape mismatch in dense literal. Expected {shape} shape from the "
                         f"type, but got {literal_shape} shape.")
    if len(values) == 1 and count > 1:   # a splat: the one element's bytes
        one = DenseIntOrFPElementsAttr.from_list(TensorType(element, []), values)
        return DenseIntOrFPElementsAttr(type, one.data)
    return DenseIntOrFPElementsAttr.from_list(type, values)


def parse_module(text: str):
    """Parse df MLIR text (custom or generic form) into a verified-later ModuleOp."""
    from xdsl.parser import Parser

    from .dialect import context
    _patch_parser()
    return Parser(context(), text).parse_module()
