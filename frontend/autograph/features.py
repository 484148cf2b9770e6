"""`tf.autograph.experimental.Feature`: optional conversions, chosen per `tf.function` with
`experimental_autograph_options=`.

TF's members keep TF's meaning; the ones flowjit acts on are ASSERT_STATEMENTS (a tensor
`assert` becomes `tf.Assert`; by default it raises as in TF) and LISTS (lists appended to in
staged code become `TensorList`s; by default their tensors cannot leave the region, as in
TF). Two members are flowjit extensions that stage what TF refuses (README, "Differences
from TF"); `ALL` means TF's members only, so a TF program passing `ALL` keeps TF's behaviour.
"""
from __future__ import annotations

import enum


class Feature(enum.Enum):
    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"
    # flowjit extensions
    STAGED_PRINT = "STAGED_PRINT"           # Python print of tensors becomes tf.print
    STAGED_PYTHON_LOOPS = "STAGED_PYTHON_LOOPS"   # see README, "Differences from TF"

    @classmethod
    def all(cls):
        """TF's members (the extensions are only enabled by name)."""
        return tuple(m for m in cls if m not in _EXTENSIONS)

    @classmethod
    def all_but(cls, exclude):
        if not isinstance(exclude, (list, tuple, set)):
            exclude = (exclude,)
        return tuple(set(cls.all()) - set(exclude) - {cls.ALL})


_EXTENSIONS = frozenset({Feature.STAGED_PRINT, Feature.STAGED_PYTHON_LOOPS})
_TF_FEATURES = frozenset(Feature) - _EXTENSIONS - {Feature.ALL}


def resolve(options) -> frozenset:
    """The set of features a `experimental_autograph_options` value enables."""
    if options is None:
        return frozenset()
    items = options if isinstance(options, (list, tuple, set, frozenset)) else (options,)
    out = set()
    for item in items:
        if not isinstance(item, Feature):
            raise TypeError(f"experimental_autograph_options: expected "
                            f"tf.autograph.experimental.Feature values, got {item!r}")
        out |= _TF_FEATURES if item is Feature.ALL else {item}
    return frozenset(out)
