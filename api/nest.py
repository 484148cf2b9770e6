"""TF's `tf.nest`: nested structures of tensors (composite tensors are leaves unless
`expand_composites=True`)."""
from flowjit.frontend import nest as _nest


def is_nested(seq):
    return _nest._kind_unexpanded(seq) != _nest.LEAF


def flatten(structure, expand_composites=False):
    return _nest.flatten(structure, expand_composites)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    return _nest.pack_sequence_as(structure, flat_sequence, expand_composites)


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    _nest.assert_same_structure(nest1, nest2, check_types, expand_composites)


def map_structure(func, *structure, **kwargs):
    kwargs.setdefault("expand_composites", False)
    return _nest.map_structure(func, *structure, **kwargs)


for _public, _inner in ((is_nested, _nest.is_nested), (flatten, _nest.flatten), (pack_sequence_as, _nest.pack_sequence_as),
                        (assert_same_structure, _nest.assert_same_structure),
                        (map_structure, _nest.map_structure)):
    _public.__doc__ = _inner.__doc__
del _public, _inner
