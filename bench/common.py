"""Timing helpers shared by the benchmarks: best-of-repeats per-call time, ratio tables."""
from __future__ import annotations

import timeit


def per_call_us(fn, min_time=0.2, repeat=5) -> float:
    """Best per-call time in microseconds (best of `repeat` runs of about `min_time` s each):
    the minimum is the least noisy estimate on a shared machine."""
    t = timeit.Timer(fn)
    n, _ = t.autorange()
    n = max(1, int(n * min_time / 0.2))
    return min(t.repeat(repeat=repeat, number=n)) / n * 1e6


def table(rows, headers):
    widths = [max(len(str(r[i])) for r in rows + [headers]) for i in range(len(headers))]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths))
    out = [line, "-" * len(line)]
    for r in rows:
        out.append("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    return "\n".join(out)
