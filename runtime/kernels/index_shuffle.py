"""Kernel of `random_index_shuffle`: TF's cycle-walking Simon cipher, written once over an
arithmetic backend so the StableHLO rule builds the same steps (lowering/stablehlo/
index_shuffle.py).

Per element: the smallest even block of at least 16 bits that holds ceil(log2(max_index))
bits splits into two words of W bits; the round keys start from the seed's three words cut to
W bits and follow Simon's key schedule; the index is encrypted, and encrypted again while it
exceeds max_index (a permutation of the block walks back into [0, max_index] on every cycle,
so the map is a bijection there). max_index 0 maps everything to 0. All steps are elementwise
in uint64, so each element may have its own block size, seed and bound.
"""
from __future__ import annotations

import numpy as np

from ...ir.errors import InvalidArgumentError
from . import kernel

KEY_CONSTANT = 0xfffffffc
KEY_SEQUENCE = 0x7369f885192c0ef5   # Simon's z sequence, one bit a round
MIN_BLOCK = 16


class NumpyBits:
    """The backend of the eager and executor kernel: uint64 arrays."""

    def const(self, value, like):
        return np.full(np.shape(like), value, np.uint64)

    xor, and_, or_ = staticmethod(np.bitwise_xor), staticmethod(np.bitwise_and), \
        staticmethod(np.bitwise_or)
    shl, shr = staticmethod(np.left_shift), staticmethod(np.right_shift)
    add, sub = staticmethod(np.add), staticmethod(np.subtract)
    ge, gt, eq = staticmethod(np.greater_equal), staticmethod(np.greater), \
        staticmethod(np.equal)
    select = staticmethod(np.where)

    @staticmethod
    def walk(value, top, step):
        while np.any(value > top):
            value = np.where(value > top, step(value), value)
        return value


class _OneStep(NumpyBits):
    """A backend that encrypts once and does not walk: the table of a 16-bit block."""

    @staticmethod
    def walk(value, top, step):
        return value


def _walk_table(value, bound, words, rounds):
    """The smallest block (16 bits), whose bound may lie far below the block size, so a walk
    may take thousands of steps: the seed encrypts all 2**16 block values at once and each
    element's walk follows that table."""
    block = np.arange(1 << MIN_BLOCK, dtype=np.uint64)
    table = shuffle(_OneStep(), block, words, np.full_like(block, 1 << MIN_BLOCK),
                    rounds).tolist()
    out = []
    for v, top in zip(value.tolist(), bound.tolist()):
        v = table[v & ((1 << MIN_BLOCK) - 1)]   # the cipher reads the block's bits only
        while v > top:
            v = table[v]
        out.append(v)
    return np.asarray(out, np.uint64)


def _rotl(b, x, r, width, mask):
    return b.and_(b.or_(b.shl(x, b.const(r, x)), b.shr(x, b.sub(width, b.const(r, x)))), mask)


def _rotr(b, x, r, width, mask):
    return b.and_(b.or_(b.shr(x, b.const(r, x)), b.shl(x, b.sub(width, b.const(r, x)))), mask)


def _simon_f(b, x, width, mask):
    both = b.and_(_rotl(b, x, 1, width, mask), _rotl(b, x, 8, width, mask))
    return b.xor(both, _rotl(b, x, 2, width, mask))


def word_width(b, top):
    """Half the block: ceil(log2(max_index)) bits (the bit length of max_index - 1), made
    even and at least MIN_BLOCK."""
    one = b.const(1, top)
    below = b.sub(top, one)   # max_index 0 wraps around; its answer is 0 whatever the width
    bits = b.const(0, top)
    for k in range(64):
        bits = b.add(bits, b.select(b.ge(below, b.const(1 << k, top)), one, b.const(0, top)))
    bits = b.add(bits, b.and_(bits, one))
    wide = b.select(b.ge(bits, b.const(MIN_BLOCK, top)), bits, b.const(MIN_BLOCK, top))
    return b.shr(wide, one)


def shuffle(b, index, words, top, rounds: int):
    """The shuffled index of each element (uint64), given the seed's three words."""
    width = word_width(b, top)
    mask = b.sub(b.shl(b.const(1, top), width), b.const(1, top))
    keys = [b.and_(w, mask) for w in words]
    constant = b.and_(b.const(KEY_CONSTANT, top), mask)
    sequence = b.and_(b.const(KEY_SEQUENCE, top), mask)
    for i in range(3, rounds):
        mixed = b.xor(_rotr(b, keys[i - 1], 3, width, mask), _rotr(b, keys[i - 1], 4, width,
                                                                   mask))
        bit = b.and_(sequence, b.const(1, top))
        keys.append(b.xor(b.xor(constant, bit), b.xor(keys[i - 3], mixed)))
        sequence = b.shr(sequence, b.const(1, top))

    def encrypt(value):
        left, right = b.and_(b.shr(value, width), mask), b.and_(value, mask)
        for k1, k2 in zip(keys[::2], keys[1::2]):
            left = b.xor(b.xor(left, _simon_f(b, right, width, mask)), k1)
            right = b.xor(b.xor(right, _simon_f(b, left, width, mask)), k2)
        return b.or_(b.shl(left, width), right)

    # max_index 0 takes no walk (its answer is 0): its bound is lifted out of reach
    empty = b.eq(top, b.const(0, top))
    shuffled = b.walk(encrypt(index), b.select(empty, b.const(2 ** 64 - 1, top), top), encrypt)
    return b.select(empty, b.const(0, top), shuffled)


@kernel("random_index_shuffle")
def random_index_shuffle(index, seed, max_index, rounds):
    index, seed, top = np.asarray(index), np.asarray(seed), np.asarray(max_index)
    shape = np.broadcast_shapes(index.shape, top.shape, seed.shape[:-1])
    as_u64 = lambda x: np.broadcast_to(x.astype(np.int64).astype(np.uint64)  # noqa: E731
                                       if x.dtype.kind == "i" else x.astype(np.uint64), shape)
    # each seed word is the uint32 its low 32 bits spell
    words = [as_u64(seed[..., i]) & np.uint64(0xffffffff) for i in range(3)]
    value, bound = as_u64(index), as_u64(top)
    beyond = np.flatnonzero((value > bound).reshape(-1))
    if beyond.size:
        i = beyond[0]
        raise InvalidArgumentError(
            None, "RandomIndexShuffle", f"max_index must be >= index, but "
            f"{bound.reshape(-1)[i]} < {value.reshape(-1)[i]}")
    value, bound = value.reshape(-1), bound.reshape(-1)
    words = [w.reshape(-1) for w in words]
    out = np.empty_like(value)
    small = (bound > 0) & (bound <= 1 << MIN_BLOCK)   # the 16-bit block (and its walks)
    with np.errstate(over="ignore"):
        rest = np.flatnonzero(~small)
        out[rest] = shuffle(NumpyBits(), value[rest], [w[rest] for w in words], bound[rest],
                            int(rounds))
        seeds = np.stack(words, -1)
        for seed_words in {tuple(row) for row in seeds[small].tolist()}:
            group = np.flatnonzero(small & (seeds == np.asarray(seed_words, np.uint64))
                                   .all(-1))
            out[group] = _walk_table(value[group], bound[group],
                                     [np.uint64(w) for w in seed_words], int(rounds))
    return out.reshape(shape).astype(index.dtype)
