"""`tf.random.Generator`: a random stream whose state is a `tf.Variable`, so it checkpoints
and continues inside `tf.function` (each draw reads the state and advances it).

The state has TF's Philox layout, int64 [counter_low, counter_high, key] (Threefry's is
[counter, key]), and `create_rng_state` builds it as TF does. A draw uses the stateless ops
with the seed (key, counter) and then advances the counter by one: the values are flowjit's
Threefry stream, not TF's Philox bits, and TF advances the counter by the number of Philox
blocks a draw used (README "Differences from TF").
"""
from __future__ import annotations

import enum
import random as _pyrandom

import numpy as np

from ...ir import dtypes as D
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from ..ops import array as A
from ..ops import math as M
from ..ops import random as RND
from .variables import Variable


@tf_export("random.Algorithm")
class Algorithm(enum.Enum):
    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


_STATE_SIZE = {Algorithm.PHILOX: 3, Algorithm.THREEFRY: 2}
_ALG_NAMES = {"philox": Algorithm.PHILOX, "threefry": Algorithm.THREEFRY,
              "auto_select": Algorithm.AUTO_SELECT}


def _algorithm(alg) -> Algorithm:
    if alg is None:
        return Algorithm.PHILOX
    if isinstance(alg, str):
        if alg.lower() not in _ALG_NAMES:
            raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values "
                             f"are {', '.join(_ALG_NAMES)}.")
        alg = _ALG_NAMES[alg.lower()]
    alg = Algorithm(alg.value if isinstance(alg, Algorithm) else int(alg))
    return Algorithm.PHILOX if alg is Algorithm.AUTO_SELECT else alg


@tf_export("random.create_rng_state")
def create_rng_state(seed, alg):
    """The int64 state TF makes from an integer seed: its two's-complement 64-bit words,
    low first (a negative seed's sign fills the rest)."""
    size = _STATE_SIZE[_algorithm(alg)]
    seed = int(seed)
    words = [(seed >> (64 * i)) & 0xFFFFFFFFFFFFFFFF for i in range(size)]
    return convert_to_tensor(np.array(words, np.uint64).astype(np.int64))


def _key_counter_state(key, counter):
    counter = np.asarray(counter, np.int64).reshape(-1)
    return np.concatenate([counter, [int(key)]]).astype(np.int64)


@tf_export("random.Generator")
class Generator:
    """A random-number generator with its state in a Variable (see the module doc)."""

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("When `copy_from` is not None, neither `state` nor `alg` can "
                                 "be set.")
            self._alg = copy_from._alg
            state = copy_from.state.read_value()
        else:
            self._alg = _algorithm(alg)
            if state is None:
                raise ValueError("`state` can't be None when `copy_from` is None.")
        state = convert_to_tensor(state, dtype=D.int64)
        if state.shape.as_list() != [_STATE_SIZE[self._alg]]:
            raise ValueError(f"Shapes {tuple(state.shape.as_list())} and "
                             f"[{_STATE_SIZE[self._alg]}] are incompatible")
        self._state_var = Variable(state, dtype=D.int64, trainable=False, name="StateVar")

    # --- construction -----------------------------------------------------------------------
    @classmethod
    def from_state(cls, state, alg):
        return cls(state=state, alg=alg)

    @classmethod
    def from_seed(cls, seed, alg=None):
        return cls(state=create_rng_state(seed, _algorithm(alg)), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        return cls.from_seed(_pyrandom.SystemRandom().getrandbits(63), alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        return cls(state=_key_counter_state(key, counter), alg=alg)

    def _checkpoint_children(self):
        return [("_state_var", self._state_var)]

    # --- state ------------------------------------------------------------------------------
    @property
    def state(self):
        return self._state_var

    @property
    def algorithm(self):
        return self._alg.value

    @property
    def key(self):
        return self._state_var[-1]

    def reset(self, state):
        self._state_var.assign(convert_to_tensor(state, dtype=D.int64))

    def reset_from_seed(self, seed):
        self.reset(create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key, counter):
        self.reset(_key_counter_state(key, counter))

    def skip(self, delta):
        """Advance the counter by `delta` draws."""
        step = A.one_hot(0, _STATE_SIZE[self._alg], dtype=D.int64)
        self._state_var.assign_add(M.multiply(step, M.cast(delta, D.int64)))

    def _next_seed(self):
        """The (key, counter) seed of this draw; the counter then moves on by one."""
        state = self._state_var.read_value()
        seed = A.stack([state[-1], state[0]])
        self.skip(1)
        return seed

    # --- draws ------------------------------------------------------------------------------
    def normal(self, shape, mean=0.0, stddev=1.0, dtype=D.float32, name=None):
        return RND.stateless_normal(shape, self._next_seed(), mean, stddev, dtype)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=D.float32, name=None):
        return RND.stateless_truncated_normal(shape, self._next_seed(), mean, stddev, dtype)

    def uniform(self, shape, minval=0, maxval=None, dtype=D.float32, name=None):
        dt = D.as_dtype(dtype)
        if dt.is_integer and maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dt!r}")
        return RND.stateless_uniform(shape, self._next_seed(), minval, maxval, dt)

    def uniform_full_int(self, shape, dtype=D.int64, name=None):
        """Integers over the dtype's whole range (int32/int64: flowjit has no uint64, TF's
        default here)."""
        return RND.stateless_uniform(shape, self._next_seed(), minval=None, maxval=None,
                                     dtype=dtype)

    def make_seeds(self, count=1):
        """[2, count] int64 seeds for the stateless ops."""
        return RND.stateless_uniform([2, count], self._next_seed(), minval=None, maxval=None,
                                     dtype=D.int64)

    def split(self, count=1):
        """`count` new Generators, seeded from this one's stream."""
        seeds = self.make_seeds(count)
        zeros = [0] * (_STATE_SIZE[self._alg] - 2)
        return [Generator(state=A.stack([seeds[0, i]] + zeros + [seeds[1, i]]), alg=self._alg)
                for i in range(count)]


class _Global:
    generator = None


@tf_export("random.get_global_generator")
def get_global_generator():
    """The process-wide Generator, made from non-deterministic state on first use."""
    if _Global.generator is None:
        _Global.generator = Generator.from_non_deterministic_state()
    return _Global.generator


@tf_export("random.set_global_generator")
def set_global_generator(generator):
    """Replace the global Generator (functions that captured the old one keep using it)."""
    _Global.generator = generator
