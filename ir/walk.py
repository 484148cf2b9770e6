"""Walking a df module's ops, for the passes that need every op at once."""
from __future__ import annotations


def preorder(regions, out: list) -> list:
    """Append every op nested in `regions` to `out` in pre-order and return `out`. A value's
    definition comes before all its uses (dominance; uses inside nested regions included) and
    a region op before its body. Reads xDSL's linked-list fields directly: the pipeline walks
    whole modules several times per compile."""
    for region in regions:
        for block in region.blocks:
            op = block._first_op
            while op is not None:
                out.append(op)
                if op.regions:
                    preorder(op.regions, out)
                op = op._next_op
    return out
