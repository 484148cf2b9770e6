"""TF 2's tensor initializers at the top level (tf.zeros_initializer, tf.ones_initializer,
tf.constant_initializer, tf.random_normal_initializer, tf.random_uniform_initializer):
callables `init(shape, dtype)` with TF's configs, built on flowjit's ops."""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import random as R


class _Initializer:
    """TF's Initializer protocol: `__call__(shape, dtype)`, `get_config`, `from_config`."""

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("dtype", None)   # TF 1 configs carried one
        return cls(**config)


def _float(dtype):
    dt = D.as_dtype(dtype)
    if not dt.is_floating:
        raise ValueError(f"Argument `dtype` is expected to be floating point. Received: {dt}.")
    return dt


@tf_export("zeros_initializer")
class zeros_initializer(_Initializer):  # noqa: N801  (TF's names)
    """Tensors filled with 0."""

    def __call__(self, shape, dtype=D.float32, **kwargs):
        return A.zeros(shape, D.as_dtype(dtype))


@tf_export("ones_initializer")
class ones_initializer(_Initializer):  # noqa: N801
    """Tensors filled with 1."""

    def __call__(self, shape, dtype=D.float32, **kwargs):
        return A.ones(shape, D.as_dtype(dtype))


@tf_export("constant_initializer")
class constant_initializer(_Initializer):  # noqa: N801
    """Tensors holding `value`: a scalar fills the shape; a list or array is reshaped to it
    (its size must match)."""

    def __init__(self, value=0, support_partition=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))
                or hasattr(value, "numpy")):
            raise TypeError(f"Invalid type for initial value={value} of type: "
                            f"{type(value).__name__}. Expected Python scalar, list or tuple of "
                            f"values, or numpy.ndarray.")
        self.value = value
        self.support_partition = support_partition

    def __call__(self, shape, dtype=D.float32, **kwargs):
        dt = D.as_dtype(dtype)
        shape = [int(d) for d in shape]
        value = np.asarray(self.value.numpy() if hasattr(self.value, "numpy") else self.value)
        if value.ndim == 0:
            return A.fill(shape, convert_to_tensor(value.item(), dtype=dt))
        if value.size != int(np.prod(shape)):
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor "
                            f"{value} (converted from {self.value}) has {value.size} "
                            f"elements, but got `shape` {tuple(shape)} with "
                            f"{int(np.prod(shape))} elements).")
        return A.reshape(convert_to_tensor(value.astype(dt.np)), shape)

    def get_config(self):
        value = self.value
        return {"value": value.tolist() if isinstance(value, np.ndarray) else value}


@tf_export("random_normal_initializer")
class random_normal_initializer(_Initializer):  # noqa: N801
    """Normally distributed values with `mean` and `stddev`."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=D.float32, **kwargs):
        return R.normal(shape, self.mean, self.stddev, _float(dtype),
                        seed=self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


@tf_export("random_uniform_initializer")
class random_uniform_initializer(_Initializer):  # noqa: N801
    """Uniformly distributed values in [minval, maxval)."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=D.float32, **kwargs):
        dt = D.as_dtype(dtype)
        if not (dt.is_floating or dt.is_integer):
            raise ValueError(f"Expected float or integer dtype, got {dt.name}.")
        return R.uniform(shape, self.minval, self.maxval, dt, seed=self.seed)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}
