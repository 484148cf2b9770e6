"""TF's `nest`: flatten nested lists/tuples/namedtuples/dicts (dicts by sorted key) and pack
a flat list back into the same structure.

A composite value (a class with `_nest_components()` and `_nest_rebuild(components)`, such as
`TensorArray`) is a structure of its component tensors, so loops and branches carry it as those
tensors and rebuild it on the other side (TF's `expand_composites=True`)."""
from __future__ import annotations


def _is_composite(x) -> bool:
    return hasattr(type(x), "_nest_components")


def is_nested(x) -> bool:
    return isinstance(x, (list, tuple, dict)) or _is_composite(x)


def _children(x):
    if isinstance(x, dict):
        return [x[k] for k in sorted(x, key=repr)]
    if _is_composite(x):
        return x._nest_components()
    return list(x)


def flatten(structure) -> list:
    if not is_nested(structure):
        return [structure]
    out = []
    for c in _children(structure):
        out.extend(flatten(c))
    return out


def flatten_with_paths(structure, path="") -> list:
    """[(path, leaf)] with paths like `[0]['w']`."""
    if not is_nested(structure):
        return [(path, structure)]
    if isinstance(structure, dict):
        items = [(k, structure[k]) for k in sorted(structure, key=repr)]
    else:
        items = list(enumerate(_children(structure)))
    out = []
    for k, child in items:
        out.extend(flatten_with_paths(child, f"{path}[{k!r}]"))
    return out


def pack_sequence_as(structure, flat):
    it = iter(flat)

    def build(s):
        if not is_nested(s):
            return next(it)
        if isinstance(s, dict):
            vals = {k: build(s[k]) for k in sorted(s, key=repr)}
            return type(s)((k, vals[k]) for k in s)
        items = [build(c) for c in _children(s)]
        if _is_composite(s):
            return s._nest_rebuild(items)
        if hasattr(s, "_fields"):
            return type(s)(*items)
        return type(s)(items)
    out = build(structure)
    rest = list(it)
    if rest:
        raise ValueError(f"pack_sequence_as: {len(rest)} values left over")
    return out


def same_structure(a, b) -> bool:
    if is_nested(a) != is_nested(b):
        return False
    if not is_nested(a):
        return True
    if isinstance(a, dict) != isinstance(b, dict) or _is_composite(a) != _is_composite(b):
        return False
    if _is_composite(a):
        return type(a) is type(b) and len(a._nest_components()) == len(b._nest_components())
    if isinstance(a, dict):
        if set(a) != set(b):
            return False
        return all(same_structure(a[k], b[k]) for k in a)
    if len(a) != len(b):  # lists and tuples match each other (TF's check_types=False)
        return False
    return all(same_structure(x, y) for x, y in zip(a, b))


def map_structure(fn, *structures):
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [fn(*xs) for xs in zip(*flats)])
