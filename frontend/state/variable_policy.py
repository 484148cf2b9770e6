"""How a variable is kept in sync across replicas and how replica updates combine: TF's
`tf.VariableSynchronization` and `tf.VariableAggregation`, accepted by `tf.Variable(...)`
and read back from its `synchronization` and `aggregation` properties."""
from __future__ import annotations

import enum

from ..export import tf_export


@tf_export("VariableSynchronization")
class VariableSynchronization(enum.Enum):
    """When a distributed variable's copies are synchronized."""
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


# TF's class is named VariableAggregationV2 (the name its repr prints).
@tf_export("VariableAggregation")
class VariableAggregationV2(enum.Enum):
    """How the updates of a distributed variable's replicas combine."""
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


def _member(enum_class, value, what, name):
    """`value` as a member of `enum_class` (a member or its number), as TF reads it."""
    try:
        return enum_class(value)
    except ValueError:
        raise ValueError(f"Invalid variable {what} mode: {value} for variable: {name}") \
            from None


def checked(synchronization, aggregation, trainable, name):
    """The validated (synchronization, aggregation, trainable) of a new variable: the enums'
    defaults for None, and trainable False by default for an ON_READ variable, as TF."""
    synchronization = VariableSynchronization.AUTO if synchronization is None else \
        _member(VariableSynchronization, synchronization, "synchronization", name)
    aggregation = VariableAggregationV2.NONE if aggregation is None else \
        _member(VariableAggregationV2, aggregation, "aggregation", name)
    if trainable is None:
        trainable = synchronization is not VariableSynchronization.ON_READ
    return synchronization, aggregation, bool(trainable)
