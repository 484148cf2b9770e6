"""The option groups inside `tf.data.Options` (`options.experimental_optimization...`) and the
policy enums they take. flowjit's pipelines run as written, so the groups only record."""
from __future__ import annotations

import enum

from ..export import tf_export


class _OptionGroup:
    """A group of `tf.data.Options` fields: TF's names, unset (None) until assigned."""
    _FIELDS: tuple = ()

    def __init__(self):
        for f in self._FIELDS:
            object.__setattr__(self, f, None)

    def __setattr__(self, name, value):
        if name not in self._FIELDS:
            raise AttributeError(f"Cannot set the property {name} on "
                                 f"{type(self).__name__}.")
        object.__setattr__(self, name, value)

    def merged(self, other):
        out = type(self)()
        for f in self._FIELDS:
            theirs = getattr(other, f)
            object.__setattr__(out, f, theirs if theirs is not None else getattr(self, f))
        return out

    def __eq__(self, other):
        return type(other) is type(self) and all(
            getattr(self, f) == getattr(other, f) for f in self._FIELDS)


@tf_export("data.experimental.OptimizationOptions")
class OptimizationOptions(_OptionGroup):
    _FIELDS = ("apply_default_optimizations", "filter_fusion", "filter_parallelization",
               "inject_prefetch", "map_and_batch_fusion", "map_and_filter_fusion",
               "map_fusion", "map_parallelization", "noop_elimination", "parallel_batch",
               "seq_interleave_prefetch", "shuffle_and_repeat_fusion", "warm_start")


@tf_export("data.experimental.DistributeOptions")
class DistributeOptions(_OptionGroup):
    _FIELDS = ("auto_shard_policy", "num_devices")


@tf_export("data.experimental.ThreadingOptions", "data.ThreadingOptions")
class ThreadingOptions(_OptionGroup):
    _FIELDS = ("max_intra_op_parallelism", "private_threadpool_size")


# Options' fields that hold a group, and the group's class
GROUPS = {"experimental_optimization": OptimizationOptions,
          "experimental_distribute": DistributeOptions,
          "threading": ThreadingOptions, "experimental_threading": ThreadingOptions}


@tf_export("data.experimental.AutoShardPolicy")
class AutoShardPolicy(enum.IntEnum):
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


@tf_export("data.experimental.ExternalStatePolicy")
class ExternalStatePolicy(enum.Enum):
    WARN = 0
    IGNORE = 1
    FAIL = 2
