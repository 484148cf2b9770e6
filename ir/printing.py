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
    from xdsl.parser import attribute_parser
    attribute_parser.base = functools.lru_cache(None)(attribute_parser.base)


def parse_module(text: str):
    """Parse df MLIR text (custom or generic form) into a verified-later ModuleOp."""
    from xdsl.parser import Parser

    from .dialect import context
    _patch_parser()
    return Parser(context(), text).parse_module()
