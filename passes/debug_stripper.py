"""`debug-stripper` (off by default; TF's `debug_stripper` option turns it on): removes
`df.assert` ops, as Grappler's DebugStripper turns Assert into a no-op. The token chain is
rethreaded: whatever consumed the assert's token takes the token the assert consumed, so the
other side effects keep their order. The condition and data computations become dead and
the rewrite driver removes them. `df.print` stays (it is output, not a check)."""
from __future__ import annotations

from dataclasses import dataclass

from . import register_pass
from .rewrite import PatternPass, RootedPattern


class StripAssert(RootedPattern):
    roots = ("df.assert",)

    def match_and_rewrite(self, op, rewriter):
        rewriter.replace_all_uses_with(op.results[-1], op.operands[-1])
        rewriter.erase(op)


@register_pass
@dataclass(frozen=True)
class DebugStripper(PatternPass):
    name = "debug-stripper"

    def patterns(self):
        return (StripAssert(),)
