"""`tf.random_index_shuffle`'s op: the position of each index in a pseudorandom permutation
of [0, max_index] picked by a 3-word seed (TF's Simon-cipher bijection). Index, max_index and
the output share one integer dtype; not differentiable."""
from __future__ import annotations

from .. import dtypes as D
from ..registry import InferenceError, TT, op

INDEX_DTYPES = (D.int32, D.int64, D.uint32, D.uint64)


def _dims(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


@op("random_index_shuffle", ("index", "seed", "max_index"), attrs=(("rounds", "int", 4),),
    differentiable=False)
def _random_index_shuffle(types, attrs):
    """Scalar when all three are (index and max_index scalars, one seed), else a vector of
    the longest of index, max_index and the seed rows (TF's kernel rules)."""
    index, seed, top = types
    if index.dtype not in INDEX_DTYPES:
        raise InferenceError(f"Value for attr 'dtype' of {index.dtype.name} is not in the "
                             f"list of allowed values: int32, uint32, int64, uint64")
    if top.dtype != index.dtype:
        raise InferenceError(f"cannot compute RandomIndexShuffle as input #2(zero-based) was "
                             f"expected to be a {index.dtype.name} tensor but is a "
                             f"{top.dtype.name} tensor")
    if seed.dtype not in INDEX_DTYPES:
        raise InferenceError(f"Value for attr 'Tseed' of {seed.dtype.name} is not in the list "
                             f"of allowed values: int32, uint32, int64, uint64")
    if attrs["rounds"] < 4 or attrs["rounds"] % 2:
        raise InferenceError(f"rounds must be an even number >= 4, got {attrs['rounds']}")
    if None in (index.shape, seed.shape, top.shape):
        return TT(index.dtype, None)
    scalar = len(index.shape) == 0 and len(top.shape) == 0 and len(seed.shape) == 1
    if None in tuple(index.shape) + tuple(seed.shape) + tuple(top.shape):
        return TT(index.dtype, () if scalar else (None,))   # checked when the kernel runs
    count = lambda s: 1 if not s else s[0]   # noqa: E731
    outputs = max(count(index.shape), count(top.shape), (seed.shape[0] if len(seed.shape) == 2
                                                         else 1))
    if not (len(index.shape) == 0 or tuple(index.shape) == (outputs,)):
        raise InferenceError("Index bust be a scalar or vector.")
    if tuple(seed.shape) not in ((3,), (outputs, 3)):
        raise InferenceError(f"Seed must be a vector of size [3] or a matrix of size "
                             f"[{outputs}, 3] but got {_dims(seed.shape)}.")
    if not (len(top.shape) == 0 or tuple(top.shape) == (outputs,)):
        raise InferenceError(f"Maxval must be a scalar or a vector of the same size as index "
                             f"but got {_dims(top.shape)}")
    return TT(index.dtype, () if scalar else (outputs,))
