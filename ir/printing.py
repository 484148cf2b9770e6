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


def parse_module(text: str):
    """Parse df MLIR text (custom or generic form) into a verified-later ModuleOp."""
    from xdsl.parser import Parser

    from .dialect import context
    _patch_parser()
    return Parser(context(), text).parse_module()
