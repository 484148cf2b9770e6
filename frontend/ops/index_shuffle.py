"""`tf.random_index_shuffle`: a random-access pseudorandom permutation (TF's bijection)."""
from __future__ import annotations

from ..eager.dispatch import apply, convert_to_tensor
from ..export import tf_export


@tf_export("random_index_shuffle")
def random_index_shuffle(index, seed, max_index, rounds=4, name=None):
    """The position of `index` in the permutation of [0, max_index] that `seed` [3] (or one
    seed per element, [n, 3]) picks; index and max_index scalars or vectors of one integer
    dtype. For fixed seed and max_index a bijection of [0, max_index], as TF's."""
    index = convert_to_tensor(index)
    return apply("random_index_shuffle",
                 (index, convert_to_tensor(seed),
                  convert_to_tensor(max_index, dtype_hint=index.dtype)),
                 {"rounds": int(rounds)})
