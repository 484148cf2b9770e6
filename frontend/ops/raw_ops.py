"""TF's `tf.raw_ops` that TF-backed code (Keras's preprocessing layers) calls directly:
keyword arguments only, as TF's generated wrappers take them, composed from flowjit's ops."""
from __future__ import annotations

import functools

import numpy as np

from ...ir import dtypes as D
from ...ir.errors import InvalidArgumentError
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from .counting import searchsorted


def _keywords_only(snake_name, keys):
    """TF's raw op wrappers refuse positional arguments, with this text."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            if args:
                raise TypeError(f"{snake_name} only takes keyword args (possible keys: "
                                f"{keys + ['name']}). Please pass these args as kwargs "
                                f"instead.")
            return fn(**kwargs)
        return call
    return wrap


@tf_export("raw_ops.Bucketize")
@_keywords_only("bucketize", ["input", "boundaries"])
def bucketize(input, boundaries, name=None):  # noqa: A002  (TF's names)
    """The index of each element's bucket: how many of the sorted `boundaries` are <= it
    (int32; NaN after every boundary, as TF's kernel)."""
    x = convert_to_tensor(input)
    edges = np.asarray([float(b) for b in boundaries], np.float32)   # TF's attr is float
    if (edges[1:] < edges[:-1]).any():
        raise InvalidArgumentError(None, "Bucketize", "Expected sorted boundaries")
    # the kernel compares in the wider of the two types: a float64 input against the float32
    # edges widened, any other input as float32
    wide = D.float64 if x.dtype is D.float64 else D.float32
    sorted_edges = convert_to_tensor(edges.astype(wide.as_numpy_dtype))
    values = x if x.dtype is wide else M.cast(x, wide)
    flat = A.reshape(values, [-1])
    index = searchsorted(sorted_edges, flat, side="right", out_type=D.int32)
    return A.reshape(index, A.shape(x))
