"""NumPy kernels for `tf.bitwise`. A shift by a negative amount or by the type's width or more
is implementation-defined in TF; here it is NumPy's."""
from __future__ import annotations

import numpy as np

from . import register

for _name, _fn in {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
                   "bitwise_xor": np.bitwise_xor, "invert": np.invert,
                   "left_shift": np.left_shift, "right_shift": np.right_shift}.items():
    register(_name, _fn)
