"""`tf.nest` against TF 2.21's recorded results and error texts."""
from __future__ import annotations

import collections
import dataclasses

import attr
import numpy as np
import pytest

import flowjit as tf

P = collections.namedtuple("P", "x y")
Q = collections.namedtuple("Q", "x y")


@dataclasses.dataclass
class Plain:
    a: int
    b: int


@dataclasses.dataclass
class Custom:
    a: object
    b: object

    def __tf_flatten__(self):
        return "meta", (self.a, self.b)

    @classmethod
    def __tf_unflatten__(cls, metadata, components):
        assert metadata == "meta"
        return cls(*components)


@attr.s
class Attrs:
    y = attr.ib()
    x = attr.ib()


def test_flatten():
    # TF 2.21 results
    assert tf.nest.flatten({"b": 1, "a": [2, 3], "c": (4,)}) == [2, 3, 1, 4]
    assert tf.nest.flatten(P(1, [2, 3])) == [1, 2, 3]
    assert tf.nest.flatten(Plain(1, 2)) == [Plain(1, 2)]
    assert tf.nest.flatten(None) == [None]
    assert tf.nest.flatten("ab") == ["ab"]
    assert tf.nest.flatten([[], (), {}]) == []
    assert tf.nest.flatten({1, 2}) == [{1, 2}]
    assert tf.nest.flatten(collections.OrderedDict([("b", 1), ("a", 2)])) == [2, 1]
    assert tf.nest.flatten({10: "ten", 9: "nine"}) == ["nine", "ten"]
    assert tf.nest.flatten(Attrs(1, [2, 3])) == [1, 2, 3]
    assert tf.nest.flatten(Custom(1, {"k": 2})) == [1, 2]
    t = tf.constant([1, 2])
    assert tf.nest.flatten(t)[0] is t
    with pytest.raises(TypeError):  # TF 2.21: '<' not supported between 'str' and 'int'
        tf.nest.flatten({1: "a", "x": "b"})


def test_is_nested():
    # TF 2.21: containers, namedtuples, attrs and __tf_flatten__ objects; not dataclasses
    values = [[], (), {}, P(1, 2), Attrs(1, 2), Custom(1, 2), Plain(1, 2), 1, "s", None,
              np.zeros(2), tf.constant([1])]
    assert [tf.nest.is_nested(v) for v in values] == [True] * 6 + [False] * 6


def test_pack_sequence_as():
    # TF 2.21 results
    assert tf.nest.pack_sequence_as({"b": 0, "a": [0, 0]}, [1, 2, 3]) == {"b": 3, "a": [1, 2]}
    packed = tf.nest.pack_sequence_as(P(0, [0]), [1, 2])
    assert type(packed) is P and packed == P(1, [2])
    od = tf.nest.pack_sequence_as(collections.OrderedDict([("b", 0), ("a", 0)]), [1, 2])
    assert type(od) is collections.OrderedDict and list(od.items()) == [("b", 2), ("a", 1)]
    assert tf.nest.pack_sequence_as(Attrs(0, [0, 0]), [7, 8, 9]) == Attrs(7, [8, 9])
    assert tf.nest.pack_sequence_as(0, [5]) == 5
    assert tf.nest.map_structure(lambda v: v * 10, Custom(1, [2])) == Custom(10, [20])


@pytest.mark.parametrize("structure, flat, cls, text", [
    ([0, [0, 0]], [1, 2], ValueError,
     "Could not pack sequence. Structure had 3 atoms, but flat_sequence had 2 items.  "
     "Structure: [0, [0, 0]], flat_sequence: [1, 2]."),
    ([0, 0], [1, 2, 3], ValueError,
     "Could not pack sequence. Structure had 2 atoms, but flat_sequence had 3 items.  "
     "Structure: [0, 0], flat_sequence: [1, 2, 3]."),
    (0, [5, 6], ValueError,
     "The target structure is of type `<class 'int'>`\n  0\nHowever the input is a sequence "
     "(<class 'list'>) of length 2.\n  [5, 6]\nnest cannot guarantee that it is safe to map "
     "one to the other."),
    ([0], 5, TypeError,
     "Attempted to pack value:\n  5\ninto a structure, but found incompatible type "
     "`<class 'int'>` instead."),
])
def test_pack_errors(structure, flat, cls, text):
    # TF 2.21: these classes and texts
    with pytest.raises(cls) as info:
        tf.nest.pack_sequence_as(structure, flat)
    assert str(info.value) == text


def test_map_structure():
    # TF 2.21 results
    out = tf.nest.map_structure(lambda a, b: a + b, {"x": [1, 2], "y": 3},
                                {"x": [10, 20], "y": 30})
    assert out == {"x": [11, 22], "y": 33}
    assert tf.nest.map_structure(lambda a, b: a + b, [1, 2], (1, 2), check_types=False) == [2, 4]
    assert tf.nest.map_structure(lambda a: a, 1) == 1
    with pytest.raises(ValueError, match="Must provide at least one structure"):
        tf.nest.map_structure(lambda a: a)
    with pytest.raises(TypeError):
        tf.nest.map_structure(lambda a, b: a + b, [1, 2], (1, 2))


def _tf_message(first, second, detail, outline1, outline2):
    return (f"The two structures don't have the same nested structure.\n\nFirst structure: "
            f"{first}\n\nSecond structure: {second}\n\nMore specifically: {detail}\n"
            f"Entire first structure:\n{outline1}\nEntire second structure:\n{outline2}")


@pytest.mark.parametrize("a, b, cls, text", [
    ([1, 2], [1, 2, 3], ValueError, _tf_message(
        "type=list str=[1, 2]", "type=list str=[1, 2, 3]",
        "The two structures don't have the same number of elements. First structure: "
        "type=list str=[1, 2]. Second structure: type=list str=[1, 2, 3]",
        "[., .]", "[., ., .]")),
    ([1, 2], [1, [2]], ValueError, _tf_message(
        "type=list str=[1, 2]", "type=list str=[1, [2]]",
        'Substructure "type=list str=[2]" is a sequence, while substructure "type=int str=2" '
        'is not', "[., .]", "[., [.]]")),
    ([1, 2], (1, 2), TypeError, _tf_message(
        "type=list str=[1, 2]", "type=tuple str=(1, 2)",
        "The two namedtuples don't have the same sequence type. First structure type=list "
        "str=[1, 2] has type list, while second structure type=tuple str=(1, 2) has type tuple",
        "[., .]", "(., .)")),
    ({"a": 1}, {"b": 1}, ValueError, _tf_message(
        "type=dict str={'a': 1}", "type=dict str={'b': 1}",
        "The two dictionaries don't have the same set of keys. First structure has keys "
        "type=list str=['a'], while second structure has keys type=list str=['b']",
        "{'a': .}", "{'b': .}")),
    (P(1, 2), Q(1, 2), TypeError, _tf_message(
        "type=P str=P(x=1, y=2)", "type=Q str=Q(x=1, y=2)",
        "The two namedtuples don't have the same sequence type. First structure type=P "
        "str=P(x=1, y=2) has type P, while second structure type=Q str=Q(x=1, y=2) has type Q",
        "P(x=., y=.)", "Q(x=., y=.)")),
])
def test_assert_same_structure_errors(a, b, cls, text):
    # TF 2.21: these classes and texts
    with pytest.raises(cls) as info:
        tf.nest.assert_same_structure(a, b)
    assert str(info.value) == text


def test_assert_same_structure_passes():
    # TF 2.21: no error for these
    tf.nest.assert_same_structure([1, (2, 3)], [4, (5, 6)])
    tf.nest.assert_same_structure([1, 2], (1, 2), check_types=False)
    tf.nest.assert_same_structure(P(1, 2), (1, 2), check_types=False)
    tf.nest.assert_same_structure({"a": 1}, collections.OrderedDict(a=1))
    tf.nest.assert_same_structure(Custom(1, 2), (1, 2), check_types=False)


def test_traced_function_returns_nested_structures():
    f = tf.function(lambda x: {"b": P(x, x * 2), "a": Attrs(x + 1, [x])})
    out = f(tf.constant(1))
    assert type(out["b"]) is P and type(out["a"]) is Attrs
    assert [int(v) for v in tf.nest.flatten(out)] == [2, 1, 1, 2]
