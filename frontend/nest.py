"""TF's `tf.nest`, also what tracing uses to walk arguments and results.

Nested: lists, tuples (namedtuples too), dicts and other Mappings (children in sorted key
order, rebuilt in the mapping's own order), `attrs` classes, and objects with TF's
`__tf_flatten__` / `__tf_unflatten__` protocol, and composite values (a class with
`_nest_components()` and `_nest_rebuild(components)`, such as `TensorArray`: loops and
branches carry them as their component tensors, TF's `expand_composites=True`). TF's composite
tensors (`SparseTensor`, ...) are leaves unless `expand_composites` is true: `tf.nest`'s
default (api/nest.py); flowjit's own walks expand them, as TF's tracing does. Everything
else is a leaf: tensors, None, strings, sets, plain dataclasses (as TF 2.21 treats them). A
type's kind is looked up once and cached, so a walk costs one dict lookup per node.
"""
from __future__ import annotations

from collections.abc import Mapping

LEAF, SEQUENCE, MAPPING, ATTRS, CUSTOM, COMPOSITE = range(6)
_KINDS: dict = {list: SEQUENCE, tuple: SEQUENCE, dict: MAPPING}


def kind_of(x) -> int:
    t = type(x)
    k = _KINDS.get(t)
    if k is None:
        k = _KINDS[t] = (
            SEQUENCE if issubclass(t, (list, tuple)) else MAPPING if issubclass(t, Mapping)
            else ATTRS if hasattr(t, "__attrs_attrs__")
            else CUSTOM if hasattr(t, "__tf_flatten__")
            else COMPOSITE if hasattr(t, "_nest_components") else LEAF)
    return k


def _kind_unexpanded(x) -> int:
    k = kind_of(x)
    return LEAF if k == COMPOSITE and getattr(x, "_tf_composite", False) else k


def _kinds(expand_composites):
    return kind_of if expand_composites else _kind_unexpanded


def is_nested(x) -> bool:
    return kind_of(x) != LEAF


def children(x, kind) -> list:
    """The children of the container `x` of kind `kind`, in flatten order."""
    if kind == SEQUENCE:
        return list(x)
    if kind == MAPPING:
        return [x[k] for k in sorted(x)]
    if kind == ATTRS:
        return [getattr(x, a.name) for a in type(x).__attrs_attrs__]
    if kind == COMPOSITE:
        return list(x._nest_components())
    return list(x.__tf_flatten__()[1])


def rebuild(s, kind, items: list):
    """A container like `s` (of kind `kind`) holding `items` (in flatten order)."""
    t = type(s)
    if kind == SEQUENCE:
        if t is list or t is tuple:
            return t(items)
        return t(*items) if hasattr(s, "_fields") else t(items)
    if kind == MAPPING:
        by_key = dict(zip(sorted(s), items))
        return t((k, by_key[k]) for k in s)
    if kind == ATTRS:
        return t(*items)
    if kind == COMPOSITE:
        return s._nest_rebuild(items)
    return t.__tf_unflatten__(s.__tf_flatten__()[0], tuple(items))


def flatten(structure, expand_composites=True) -> list:
    """The leaves of `structure`, depth first (a leaf flattens to `[leaf]`)."""
    out: list = []
    _flatten_into(structure, out, _kinds(expand_composites))
    return out


def _flatten_into(x, out: list, kinds) -> None:
    kind = kinds(x)
    if kind == LEAF:
        out.append(x)
        return
    for c in children(x, kind):
        _flatten_into(c, out, kinds)


def flatten_with_paths(structure, path="") -> list:
    """[(path, leaf)] with paths like `[0]['w']`."""
    kind = kind_of(structure)
    if kind == LEAF:
        return [(path, structure)]
    keys = sorted(structure) if kind == MAPPING else range(len(children(structure, kind)))
    out = []
    for k, c in zip(keys, children(structure, kind)):
        out.extend(flatten_with_paths(c, f"{path}[{k!r}]"))
    return out


def pack_sequence_as(structure, flat_sequence, expand_composites=True):
    """`flat_sequence` (a list or tuple of leaves) rebuilt into the shape of `structure`."""
    if not isinstance(flat_sequence, (list, tuple)):
        raise TypeError(f"Attempted to pack value:\n  {flat_sequence}\ninto a structure, but "
                        f"found incompatible type `{type(flat_sequence)}` instead.")
    kinds = _kinds(expand_composites)
    if kinds(structure) == LEAF:
        if len(flat_sequence) != 1:
            raise ValueError(f"The target structure is of type `{type(structure)}`\n  "
                             f"{structure}\nHowever the input is a sequence "
                             f"({type(flat_sequence)}) of length {len(flat_sequence)}.\n  "
                             f"{flat_sequence}\nnest cannot guarantee that it is safe to map "
                             f"one to the other.")
        return flat_sequence[0]
    used = 0

    def build(s):
        nonlocal used
        kind = kinds(s)
        if kind == LEAF:
            used += 1
            return flat_sequence[used - 1]
        return rebuild(s, kind, [build(c) for c in children(s, kind)])
    try:
        out = build(structure)
    except IndexError:  # more leaves than values: `used` ends one past the end
        out = None
    if used != len(flat_sequence):
        raise ValueError(f"Could not pack sequence. Structure had "
                         f"{len(flatten(structure, expand_composites))} "
                         f"atoms, but flat_sequence had {len(flat_sequence)} items.  "
                         f"Structure: {structure}, flat_sequence: {flat_sequence}.")
    return out


# --- comparing structures --------------------------------------------------------------------
def _show(x) -> str:
    return f"type={type(x).__name__} str={x}"


def _difference(a, b, check_types: bool, kinds=kind_of):
    """None if `a` and `b` have the same structure, else (error class, TF's explanation)."""
    ka, kb = kinds(a), kinds(b)
    if (ka == LEAF) != (kb == LEAF):
        seq, leaf = (a, b) if kb == LEAF else (b, a)
        return ValueError, (f'Substructure "{_show(seq)}" is a sequence, while substructure '
                            f'"{_show(leaf)}" is not')
    if ka == LEAF:
        return None
    if (ka == MAPPING) != (kb == MAPPING) or (
            check_types and type(a) is not type(b) and not ka == kb == MAPPING):
        return TypeError, (f"The two namedtuples don't have the same sequence type. First "
                           f"structure {_show(a)} has type {type(a).__name__}, while second "
                           f"structure {_show(b)} has type {type(b).__name__}")
    if ka == MAPPING and kb == MAPPING and set(a) != set(b):
        return ValueError, (f"The two dictionaries don't have the same set of keys. First "
                            f"structure has keys {_show(sorted(a))}, while second structure "
                            f"has keys {_show(sorted(b))}")
    ca, cb = children(a, ka), children(b, kb)
    if len(ca) != len(cb):
        return ValueError, (f"The two structures don't have the same number of elements. "
                            f"First structure: {_show(a)}. Second structure: {_show(b)}")
    for x, y in zip(ca, cb):
        found = _difference(x, y, check_types, kinds)
        if found is not None:
            return found
    return None


def same_structure(a, b, check_types: bool = False) -> bool:
    return _difference(a, b, check_types) is None


class _Dot:
    def __repr__(self):
        return "."


def _outline(x) -> str:
    """The structure with every leaf shown as `.` (TF's "Entire ... structure")."""
    dot = _Dot()
    return repr(pack_sequence_as(x, [dot] * len(flatten(x)))) if is_nested(x) else "."


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=True):
    """Raise ValueError (TypeError for a container type mismatch with `check_types`) with
    TF's explanation unless the two structures nest the same way."""
    found = _difference(nest1, nest2, check_types, _kinds(expand_composites))
    if found is not None:
        cls, detail = found
        raise cls(f"The two structures don't have the same nested structure.\n\n"
                  f"First structure: {_show(nest1)}\n\nSecond structure: {_show(nest2)}\n\n"
                  f"More specifically: {detail}\nEntire first structure:\n{_outline(nest1)}\n"
                  f"Entire second structure:\n{_outline(nest2)}")


def map_structure(func, *structure, check_types=True, expand_composites=True):
    """`func` applied to the leaves of the structures (which must nest the same way), packed
    as the first one."""
    if not structure:
        raise ValueError("Must provide at least one structure")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types, expand_composites)
    flats = [flatten(s, expand_composites) for s in structure]
    return pack_sequence_as(structure[0], [func(*xs) for xs in zip(*flats)],
                            expand_composites)


