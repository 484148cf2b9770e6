"""The core types against TF 2's behavior: `as_dtype` and DType, TensorShape, TensorSpec, the
eager Tensor's Python protocol and printing, and `convert_to_tensor`'s dtype rules. Expected
values and strings were taken from TensorFlow 2.21 (with NumPy 2.4)."""
from __future__ import annotations

import copy
import operator
import pickle

import ml_dtypes
import numpy as np
import pytest

import flowjit as tf
from flowjit.ir.errors import InvalidArgumentError

S = tf.TensorShape
c = tf.convert_to_tensor

ALL = [tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int8, tf.int16, tf.int32, tf.int64,
       tf.uint8, tf.bool]


# --- as_dtype -----------------------------------------------------------------------------
@pytest.mark.parametrize("value,expected", [
    ("float32", tf.float32), ("float16", tf.float16), ("half", tf.float16), ("float", tf.float32),
    ("double", tf.float64), ("bfloat16", tf.bfloat16), ("bool", tf.bool), ("int8", tf.int8),
    ("uint8", tf.uint8), ("int64", tf.int64),
    (np.float32, tf.float32), (np.dtype("int64"), tf.int64), (np.int16, tf.int16),
    (np.bool_, tf.bool), (ml_dtypes.bfloat16, tf.bfloat16), (np.dtype(ml_dtypes.bfloat16),
                                                             tf.bfloat16),
    (np.uint8, tf.uint8), (float, tf.float32), (bool, tf.bool),
    (tf.int32, tf.int32),
])
def test_as_dtype(value, expected):
    assert tf.as_dtype(value) is expected
    assert tf.dtypes.as_dtype(value) is expected


@pytest.mark.parametrize("value", ["bogus", None, [1], str, "int", "long"])
def test_as_dtype_errors(value):
    with pytest.raises(TypeError):
        tf.as_dtype(value)


# (is_floating, is_integer, is_unsigned, is_bool, size, numpy type)
PROPS = {
    tf.float16: (True, False, False, False, 2, np.float16),
    tf.bfloat16: (True, False, False, False, 2, ml_dtypes.bfloat16),
    tf.float32: (True, False, False, False, 4, np.float32),
    tf.float64: (True, False, False, False, 8, np.float64),
    tf.int8: (False, True, False, False, 1, np.int8),
    tf.int16: (False, True, False, False, 2, np.int16),
    tf.int32: (False, True, False, False, 4, np.int32),
    tf.int64: (False, True, False, False, 8, np.int64),
    tf.uint8: (False, True, True, False, 1, np.uint8),
    tf.bool: (False, False, False, True, 1, np.bool_),
}


@pytest.mark.parametrize("dt", ALL, ids=lambda d: d.name)
def test_dtype_properties(dt):
    fl, it, us, bo, size, npt = PROPS[dt]
    assert (dt.is_floating, dt.is_integer, dt.is_unsigned, dt.is_bool) == (fl, it, us, bo)
    assert dt.is_complex is False
    assert dt.size == size
    assert dt.as_numpy_dtype is npt
    assert dt.base_dtype is dt
    assert repr(dt) == f"tf.{dt.name}"
    assert str(dt) == f"<dtype: '{dt.name}'>"
    assert pickle.loads(pickle.dumps(dt)) is dt
    assert copy.deepcopy(dt) is dt
    assert getattr(tf, dt.name) is dt and getattr(tf.dtypes, dt.name) is dt


@pytest.mark.parametrize("dt", [d for d in ALL if d is not tf.bool], ids=lambda d: d.name)
def test_dtype_min_max(dt):
    if dt.is_integer:
        info = np.iinfo(dt.as_numpy_dtype)
        assert type(dt.min) is int and type(dt.max) is int  # TF gives Python ints
        assert (dt.min, dt.max) == (int(info.min), int(info.max))
    else:
        info = ml_dtypes.finfo(dt.as_numpy_dtype)
        assert type(dt.min) is dt.as_numpy_dtype and type(dt.max) is dt.as_numpy_dtype
        assert dt.max == info.max and dt.min == -info.max
    assert tf.float32.max == np.float32(3.4028235e38)
    assert tf.float16.max == np.float16(65504)
    assert tf.int8.min == -128 and tf.uint8.max == 255


def test_dtype_equality_and_hash():
    assert tf.float32 == "float32" and tf.float32 == np.float32 and tf.float32 == float
    assert tf.float32 == np.dtype("float32")
    assert not tf.float32 == tf.float64
    assert not tf.float32 == None  # noqa: E711
    assert not tf.float32 == 3
    assert not tf.float32 == "bogus"
    assert not tf.float32 != "float32"
    assert tf.float32 != tf.int32
    assert hash(tf.float32) == hash(tf.as_dtype("float32"))
    assert {tf.float32: 1}[tf.as_dtype(np.float32)] == 1
    assert len({tf.half, tf.float16, tf.as_dtype("half")}) == 1
    assert tf.double is tf.float64 and tf.half is tf.float16
    assert tf.float32.is_compatible_with("float32")
    assert tf.float32.is_compatible_with(tf.float32)
    assert not tf.float32.is_compatible_with(tf.int32)


# --- TensorShape --------------------------------------------------------------------------
@pytest.mark.parametrize("dims,text,rep", [
    (None, "<unknown>", "TensorShape(None)"), ([], "()", "TensorShape([])"),
    ([3], "(3,)", "TensorShape([3])"), ([None], "(None,)", "TensorShape([None])"),
    ([2, None, 3], "(2, None, 3)", "TensorShape([2, None, 3])"),
    ([2, 3], "(2, 3)", "TensorShape([2, 3])"),
])
def test_shape_str_repr(dims, text, rep):
    assert str(S(dims)) == text
    assert repr(S(dims)) == rep


def test_shape_basics():
    s = S([1, None, 3])
    assert s.rank == 3 and s.ndims == 3 and len(s) == 3
    assert S(None).rank is None and S(None).ndims is None
    assert s.as_list() == [1, None, 3]
    assert list(s) == [1, None, 3] and tuple(S([1, 2])) == (1, 2)
    assert S(3) == S([3])
    assert S(np.array([2, 3])).as_list() == [2, 3]
    assert S([np.int64(2)]).as_list() == [2]
    assert S(S([1])) == S([1])
    assert [type(d) for d in S([4, 5]).as_list()] == [int, int]
    assert (S([2, 3]).num_elements(), S([2, None]).num_elements(), S(None).num_elements(),
            S([]).num_elements()) == (6, None, None, 1)
    assert S([2, 3]).is_fully_defined()
    assert not S([None]).is_fully_defined() and not S(None).is_fully_defined()
    assert (bool(S(None)), bool(S([])), bool(S([0]))) == (False, True, True)


def test_shape_unknown_rank_errors():
    with pytest.raises(ValueError, match="unknown TensorShape"):
        S(None).as_list()
    with pytest.raises(ValueError):
        len(S(None))
    with pytest.raises(ValueError):
        list(S(None))


def test_shape_indexing():
    s = S([1, None, 3])
    assert (s[0], s[1], s[-1]) == (1, None, 3)
    assert type(s[0]) is int
    assert s[1:] == S([None, 3]) and isinstance(s[1:], S)
    assert S([1, 2, 3, 4])[::2] == S([1, 3])
    assert S(None)[0] is None
    assert S(None)[1:].rank is None
    with pytest.raises(IndexError):
        S([1])[3]


def test_shape_compatibility():
    assert S([1, None]).is_compatible_with([1, 5])
    assert not S([1, None]).is_compatible_with([2, 5])
    assert S(None).is_compatible_with([1])
    assert S([1, 2]).is_compatible_with(S(None))
    assert not S([1]).is_compatible_with([1, 2])
    S([1, None]).assert_is_compatible_with([1, 2])
    with pytest.raises(ValueError, match="incompatible"):
        S([1]).assert_is_compatible_with([2])


def test_shape_merge_and_relax():
    assert S([1, None]).merge_with([None, 3]) == S([1, 3])
    assert S(None).merge_with([1]) == S([1])
    assert S([1]).merge_with(S(None)) == S([1])
    for other in ([1, 3], [1]):
        with pytest.raises(ValueError, match="not compatible"):
            S([1, 2]).merge_with(other)
    msc = S.most_specific_compatible_shape
    assert msc(S([1, 2]), [1, 3]) == S([1, None])
    assert msc(S([1, 2]), [1]).rank is None
    assert msc(S([1, 2]), S(None)).rank is None
    assert msc(S([None, 2]), [None, 2]) == S([None, 2])


def test_shape_concatenate():
    assert S([1, 2]).concatenate([3]) == S([1, 2, 3])
    assert S([1]).concatenate(S(None)).rank is None
    assert S(None).concatenate([1]).rank is None
    assert S([]).concatenate([]) == S([])
    assert S([1]).concatenate([None]) == S([1, None])
    assert S([1]) + S([2]) == S([1, 2])
    assert [1] + S([2]) == S([1, 2])


def test_shape_equality_and_hash():
    assert S([1, 2]) == S([1, 2]) and S([1, 2]) == [1, 2] and S([1, 2]) == (1, 2)
    assert S([1, None]) == S([1, None]) and S([1, None]) == [1, None]
    assert S(None) == S(None) and not S(None) != S(None)
    assert not S([1]) == S(None)
    assert S([1]) != S([2])
    assert not S([1]) == "abc"
    assert not S([1]) == None  # noqa: E711
    assert hash(S([1, 2])) == hash(S([1, 2]))
    assert len({S([1, None]), S([1, None])}) == 1


def test_shape_with_rank():
    assert S(None).with_rank(2) == S([None, None])
    assert S([1, 2]).with_rank(2) == S([1, 2])
    with pytest.raises(ValueError, match="rank 2"):
        S([1]).with_rank(2)


@pytest.mark.parametrize("dims,exc", [([-1], ValueError), ([-2], ValueError),
                                      ([2.0], TypeError), ([2.5], TypeError),
                                      (["a"], TypeError)])
def test_shape_bad_dims(dims, exc):
    with pytest.raises(exc, match="Dimension"):
        S(dims)


# --- TensorSpec ---------------------------------------------------------------------------
def test_spec_repr():
    assert repr(tf.TensorSpec([2, None])) == \
        "TensorSpec(shape=(2, None), dtype=tf.float32, name=None)"
    assert repr(tf.TensorSpec(None, tf.int32, name="x")) == \
        "TensorSpec(shape=<unknown>, dtype=tf.int32, name='x')"
    assert repr(tf.TensorSpec([], tf.bool)) == "TensorSpec(shape=(), dtype=tf.bool, name=None)"
    assert repr(tf.TensorSpec([3])) == "TensorSpec(shape=(3,), dtype=tf.float32, name=None)"
    assert str(tf.TensorSpec([2, None], name="a")) == \
        "TensorSpec(shape=(2, None), dtype=tf.float32, name='a')"


def test_spec_properties():
    s = tf.TensorSpec([2])
    assert s.shape == S([2]) and isinstance(s.shape, S)
    assert s.dtype is tf.float32 and s.name is None
    assert tf.TensorSpec([2], name="n").name == "n"
    assert tf.TensorSpec([1], "float64").dtype is tf.float64
    spec = tf.TensorSpec.from_tensor(c([1, 2]), name="q")
    assert (spec.shape, spec.dtype, spec.name) == (S([2]), tf.int32, "q")
    with pytest.raises(TypeError):
        tf.TensorSpec([1], "bogus")
    with pytest.raises(ValueError, match="Dimension -3"):
        tf.TensorSpec([-3])


def test_spec_compatibility():
    spec = tf.TensorSpec([None, 2])
    assert spec.is_compatible_with(c([[1.0, 2.0]]))
    assert not spec.is_compatible_with(c([[1, 2]]))
    assert spec.is_compatible_with(tf.TensorSpec([3, 2]))
    assert not spec.is_compatible_with(tf.TensorSpec([3, 3]))
    assert tf.TensorSpec(None).is_compatible_with(tf.TensorSpec([3, 3]))
    assert not tf.TensorSpec([2]).is_compatible_with([1.0, 2.0])
    # names do not matter for compatibility
    assert tf.TensorSpec([2], name="a").is_compatible_with(tf.TensorSpec([2], name="b"))


def test_spec_equality_hash_and_supertype():
    assert tf.TensorSpec([2]) == tf.TensorSpec([2])
    assert tf.TensorSpec([None]) == tf.TensorSpec([None])
    assert not tf.TensorSpec([2], name="a") == tf.TensorSpec([2])
    assert not tf.TensorSpec([2]) == tf.TensorSpec([2], tf.int32)
    assert not tf.TensorSpec([2]) == 3
    assert tf.TensorSpec([2]) != tf.TensorSpec([3])
    assert hash(tf.TensorSpec([2])) == hash(tf.TensorSpec([2]))
    assert len({tf.TensorSpec([None, 2]), tf.TensorSpec([None, 2])}) == 1
    sup = tf.TensorSpec([2, 3]).most_specific_common_supertype([tf.TensorSpec([2, 4])])
    assert sup == tf.TensorSpec([2, None])
    assert tf.TensorSpec([2, 3]).most_specific_common_supertype(
        [tf.TensorSpec([2, 3], tf.int32)]) is None
    sup = tf.TensorSpec([2, 3]).most_specific_common_supertype([tf.TensorSpec([2])])
    assert sup.shape.rank is None and sup.dtype is tf.float32
    assert tf.TensorSpec([2, 3], name="a").most_specific_common_supertype(
        [tf.TensorSpec([2, 3], name="b")]) is None


# --- eager Tensor -------------------------------------------------------------------------
REPRS = [
    (lambda: c(1.5), "<tf.Tensor: shape=(), dtype=float32, numpy=1.5>",
     "tf.Tensor(1.5, shape=(), dtype=float32)"),
    (lambda: c(3), "<tf.Tensor: shape=(), dtype=int32, numpy=3>",
     "tf.Tensor(3, shape=(), dtype=int32)"),
    (lambda: c(True), "<tf.Tensor: shape=(), dtype=bool, numpy=True>",
     "tf.Tensor(True, shape=(), dtype=bool)"),
    (lambda: c(0.1), "<tf.Tensor: shape=(), dtype=float32, numpy=0.10000000149011612>",
     "tf.Tensor(0.1, shape=(), dtype=float32)"),
    (lambda: c(np.float16(0.1)), "<tf.Tensor: shape=(), dtype=float16, numpy=0.0999755859375>",
     "tf.Tensor(0.1, shape=(), dtype=float16)"),
    (lambda: c(np.array(0.1, ml_dtypes.bfloat16)),
     "<tf.Tensor: shape=(), dtype=bfloat16, numpy=0.10009765625>",
     "tf.Tensor(0.100098, shape=(), dtype=bfloat16)"),
    (lambda: c(np.float32(1e10)), "<tf.Tensor: shape=(), dtype=float32, numpy=10000000000.0>",
     "tf.Tensor(1e+10, shape=(), dtype=float32)"),
    (lambda: c(2**40), "<tf.Tensor: shape=(), dtype=int64, numpy=1099511627776>",
     "tf.Tensor(1099511627776, shape=(), dtype=int64)"),
    (lambda: c([1.5, 2.25, -3.0]),
     "<tf.Tensor: shape=(3,), dtype=float32, numpy=array([ 1.5 ,  2.25, -3.  ], "
     "dtype=float32)>",
     "tf.Tensor([ 1.5   2.25 -3.  ], shape=(3,), dtype=float32)"),
    (lambda: c([[1, 2], [3, 4]]),
     "<tf.Tensor: shape=(2, 2), dtype=int32, numpy=\narray([[1, 2],\n       [3, 4]], "
     "dtype=int32)>",
     "tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"),
    (lambda: c([[1.5, 2.5], [3.5, 4.5]]),
     "<tf.Tensor: shape=(2, 2), dtype=float32, numpy=\narray([[1.5, 2.5],\n       "
     "[3.5, 4.5]], dtype=float32)>",
     "tf.Tensor(\n[[1.5 2.5]\n [3.5 4.5]], shape=(2, 2), dtype=float32)"),
    (lambda: c([[True, False]]),
     "<tf.Tensor: shape=(1, 2), dtype=bool, numpy=array([[ True, False]])>",
     "tf.Tensor([[ True False]], shape=(1, 2), dtype=bool)"),
    (lambda: c(np.zeros((0, 3), np.float32)),
     "<tf.Tensor: shape=(0, 3), dtype=float32, numpy=array([], shape=(0, 3), "
     "dtype=float32)>",
     "tf.Tensor([], shape=(0, 3), dtype=float32)"),
    (lambda: c(np.array([np.nan, np.inf, -np.inf], np.float32)),
     "<tf.Tensor: shape=(3,), dtype=float32, numpy=array([ nan,  inf, -inf], dtype=float32)>",
     "tf.Tensor([ nan  inf -inf], shape=(3,), dtype=float32)"),
    (lambda: c(np.array([[[1, 2]], [[3, 4]]], np.int8)),
     "<tf.Tensor: shape=(2, 1, 2), dtype=int8, numpy=\narray([[[1, 2]],\n\n       "
     "[[3, 4]]], dtype=int8)>",
     "tf.Tensor(\n[[[1 2]]\n\n [[3 4]]], shape=(2, 1, 2), dtype=int8)"),
    (lambda: c(np.arange(2000, dtype=np.int32)),
     "<tf.Tensor: shape=(2000,), dtype=int32, numpy=\narray([   0,    1,    2, ..., 1997, "
     "1998, 1999],\n      shape=(2000,), dtype=int32)>",
     "tf.Tensor([   0    1    2 ... 1997 1998 1999], shape=(2000,), dtype=int32)"),
]


@pytest.mark.parametrize("i", range(len(REPRS)))
def test_tensor_repr_and_str(i):
    make, rep, text = REPRS[i]
    t = make()
    assert repr(t) == rep
    assert str(t) == text


def test_tensor_metadata():
    t = c([[1, 2, 3]])
    assert t.shape == S([1, 3]) and isinstance(t.shape, S)
    assert t.get_shape() == S([1, 3])
    assert c(1).shape == S([]) and c(1).ndim == 0
    assert t.ndim == 2 and t.dtype is tf.int32


def test_numpy_is_a_copy():
    t = c([1, 2])
    a = t.numpy()
    assert a.flags.writeable
    a[0] = 9
    np.testing.assert_array_equal(t.numpy(), [1, 2])
    for value, npt in ((1.5, np.float32), (3, np.int32), (True, np.bool_), (2**40, np.int64)):
        v = c(value).numpy()
        assert type(v) is npt and v == value


def test_array_protocol():
    t = c([1, 2])
    a = np.asarray(t)
    assert a.dtype == np.int32 and a.tolist() == [1, 2]
    assert not a.flags.writeable  # a view of the tensor: TF makes it read-only
    with pytest.raises(ValueError):
        a[0] = 5
    np.testing.assert_array_equal(t.numpy(), [1, 2])
    f = np.array(t, dtype=np.float64)
    assert f.dtype == np.float64 and f.tolist() == [1.0, 2.0]
    assert np.asarray(c(1.5)).shape == () and np.asarray(c(1.5)) == np.float32(1.5)
    assert (np.asarray(c([[1.0]]), dtype=np.float32) + 1).tolist() == [[2.0]]


def test_len_and_iter():
    t = c([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    rows = list(t)
    assert len(rows) == 3 and all(isinstance(r, tf.Tensor) for r in rows)
    assert [r.numpy().tolist() for r in rows] == [[1, 2], [3, 4], [5, 6]]
    assert rows[0].dtype is tf.int32
    assert len(c(np.zeros((0, 3)))) == 0 and list(c(np.zeros((0, 3)))) == []
    with pytest.raises(TypeError, match="len"):
        len(c(1))
    with pytest.raises(TypeError, match="iterate"):
        iter(c(1))


def test_scalar_conversions():
    assert int(c(3)) == 3 and type(int(c(3))) is int
    assert int(c(3.7)) == 3 and int(c(-3.7)) == -3
    assert float(c(2)) == 2.0 and type(float(c(2))) is float
    assert bool(c(0.0)) is False and bool(c([1])) is True and bool(c([[0]])) is False
    assert operator.index(c(3)) == 3 and [0, 1, 2, 3][c(2)] == 2
    assert operator.index(c(np.int64(3))) == 3 and operator.index(c(np.uint8(3))) == 3
    for bad in (lambda: int(c([1, 2])), lambda: float(c([1.0, 2.0])),
                lambda: int(c([[5]])), lambda: float(c([[5.0]])),
                lambda: operator.index(c([3]))):
        with pytest.raises(TypeError):
            bad()
    with pytest.raises((TypeError, AttributeError)):  # TF's is an AttributeError
        operator.index(c(3.0))
    with pytest.raises(ValueError):
        bool(c([1, 2]))


def test_hash_and_ref():
    t = c(1)
    with pytest.raises(TypeError):
        hash(t)
    with pytest.raises(TypeError):
        {t: 1}  # noqa: B018
    r = t.ref()
    assert r.deref() is t
    assert r == t.ref() and hash(r) == hash(t.ref())
    assert r != c(1).ref()
    assert {r: 1}[t.ref()] == 1
    assert repr(r) == "<Reference wrapping <tf.Tensor: shape=(), dtype=int32, numpy=1>>"


def test_equality_operators():
    eq = c([1, 2]) == c([1, 3])
    assert isinstance(eq, tf.Tensor) and eq.dtype is tf.bool
    assert eq.numpy().tolist() == [True, False]
    assert (c([1, 2]) == [1, 3]).numpy().tolist() == [True, False]
    assert (c([1, 2]) == 1).numpy().tolist() == [True, False]
    assert (c([1, 2]) != c([1, 3])).numpy().tolist() == [False, True]
    assert (c([1, 2]) == None) is False  # noqa: E711
    assert (c([1, 2]) != None) is True  # noqa: E711
    # incompatible shapes compare unequal instead of raising (TF returns a scalar False)
    assert not bool(c([1, 2]) == c([1, 2, 3]))
    assert bool(c([1, 2]) != c([1, 2, 3]))
    assert (c(1) in [c(2)]) is False


# --- convert_to_tensor --------------------------------------------------------------------
@pytest.mark.parametrize("value,dtype,shape", [
    (3, tf.int32, []), (3.0, tf.float32, []), (True, tf.bool, []), (2**40, tf.int64, []),
    (-2**31 - 1, tf.int64, []), (2**31 - 1, tf.int32, []), (-2**63, tf.int64, []),
    ([1, 2.5], tf.float32, [2]), ([1, 2**40], tf.int64, [2]),
    ([[1, 2], [3, 4]], tf.int32, [2, 2]), ([True, False], tf.bool, [2]),
    ([], tf.float32, [0]), ([[], []], tf.float32, [2, 0]), (float("inf"), tf.float32, []),
    (np.array([1.5]), tf.float64, [1]), (np.array([1]), tf.int64, [1]),
    (np.float64(1.5), tf.float64, []), (np.int16(1), tf.int16, []),
    (np.array([[1, 2]], np.uint8), tf.uint8, [1, 2]),
    (np.array(1.5, ml_dtypes.bfloat16), tf.bfloat16, []),
])
def test_convert_default_dtypes(value, dtype, shape):
    t = tf.convert_to_tensor(value)
    assert t.dtype is dtype and t.shape == S(shape)
    np.testing.assert_array_equal(t.numpy().astype(np.float64),
                                  np.asarray(value, dtype=np.float64))


def test_convert_numpy_keeps_its_value():
    a = np.array([1.0, 2.0])
    t = tf.convert_to_tensor(a)
    a[0] = 7  # the tensor holds its own copy
    assert t.numpy().tolist() == [1.0, 2.0]


def test_convert_requested_dtype():
    assert tf.convert_to_tensor(3, dtype=tf.float64).dtype is tf.float64
    assert tf.convert_to_tensor([1, 2], dtype="int64").dtype is tf.int64
    assert tf.convert_to_tensor(1, dtype=tf.float32).numpy() == np.float32(1)
    assert tf.convert_to_tensor(True, dtype=tf.float32).numpy() == np.float32(1)
    assert tf.convert_to_tensor(True, dtype=tf.int32).numpy() == 1
    assert tf.convert_to_tensor(np.array([1.5]), dtype=tf.float32).dtype is tf.float32
    # NumPy values are cast as NumPy casts them
    assert tf.convert_to_tensor(np.array([1.5]), dtype=tf.int32).numpy().tolist() == [1]
    assert tf.convert_to_tensor(np.float64(1.0), dtype=tf.int32).numpy() == 1
    assert tf.convert_to_tensor(np.array([1, 2]), dtype=tf.float32).numpy().tolist() == [1, 2]
    assert tf.convert_to_tensor(0.1, dtype=tf.float16).numpy() == np.float16(0.1)
    t = c([1, 2])
    assert tf.convert_to_tensor(t) is t and tf.convert_to_tensor(t, dtype=tf.int32) is t


def test_convert_dtype_hint():
    assert tf.convert_to_tensor(1, dtype_hint=tf.float32).dtype is tf.float32
    # a hint that does not fit is ignored
    assert tf.convert_to_tensor(1.5, dtype_hint=tf.int32).dtype is tf.float32
    assert tf.convert_to_tensor(1.0, dtype_hint=tf.int32).dtype is tf.float32
    assert tf.convert_to_tensor(c([1.0]), dtype_hint=tf.int32).dtype is tf.float32


def test_convert_list_of_tensors():
    t = tf.convert_to_tensor([c(1), 2])
    assert t.dtype is tf.int32 and t.shape == S([2]) and t.numpy().tolist() == [1, 2]


@pytest.mark.parametrize("fn,exc", [
    (lambda: tf.convert_to_tensor(1.5, dtype=tf.int32), TypeError),
    (lambda: tf.convert_to_tensor(1.0, dtype=tf.int32), TypeError),
    (lambda: tf.convert_to_tensor([1.5], dtype=tf.int32), TypeError),
    (lambda: tf.convert_to_tensor([1.0, 2.0], dtype=tf.int64), TypeError),
    (lambda: tf.convert_to_tensor(1, dtype=tf.bool), TypeError),
    (lambda: tf.convert_to_tensor([1, 0], dtype=tf.bool), TypeError),
    (lambda: tf.convert_to_tensor(1.5, dtype=tf.bool), TypeError),
    (lambda: tf.convert_to_tensor("a", dtype=tf.int32), TypeError),
    (lambda: tf.convert_to_tensor(c([1, 2]), dtype=tf.float32), ValueError),
    (lambda: tf.convert_to_tensor(c([1.0]), dtype=tf.float64), ValueError),
    (lambda: tf.convert_to_tensor(None), ValueError),
    (lambda: tf.convert_to_tensor([[1, 2], [3]]), ValueError),
    (lambda: tf.convert_to_tensor(2**63), ValueError),
    (lambda: tf.convert_to_tensor([2**64, 1]), ValueError),
    (lambda: c([1, 2]) * 2.0, TypeError),
    (lambda: c([True]) & 1, TypeError),
])
def test_convert_errors(fn, exc):
    with pytest.raises(exc):
        fn()


def test_requested_dtype_error_names_both_dtypes():
    with pytest.raises(ValueError, match="float32.*int32|int32.*float32"):
        tf.convert_to_tensor(c([1, 2]), dtype=tf.float32)
    with pytest.raises(InvalidArgumentError, match="int32"):
        tf.math.add(c([1, 2]), c([1.0, 2.0]))
