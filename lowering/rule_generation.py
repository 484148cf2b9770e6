"""The generation of the StableHLO lowering rules: bumped when a registered rule is replaced.

It is part of the key of every XLA executable (an override recompiles), so the call path reads
it on every cached call; it lives apart from the rules so that reading it loads no jax.
"""
GENERATION = 0


def bump():
    """A rule was replaced: executables lowered with the old one are stale."""
    global GENERATION
    GENERATION += 1
