"""Linalg family: matmul (batch broadcasting, transposes/adjoints, every dtype), tensordot,
einsum and top_k against references written here with Python/NumPy primitives that flowjit's
kernels do not use (float64 or exact-integer products, hand-written loops), plus every
bad-input path and inference with unknown dims.

Tolerance: a float result that sums k products is compared with
atol = rtol * (|a| @ |b|), the error bound of any summation order, with rtol per dtype."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import flowjit as tf
from flowjit.ir.errors import InvalidArgumentError
from flowjit.ir.registry import OPS, TT, InferenceError
from helpers import RTOL, assert_close, is_float, rand, shapes, tensordot_equation
from helpers import dtype_ids as ids
from helpers import wrap_int as wrap

MATMUL_DTYPES = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.int32, np.int64]


def exact_matmul(a, b):
    """Integer matmul in Python ints (object arrays), float matmul in float64."""
    if is_float(a.dtype):
        return np.matmul(a.astype(np.float64), b.astype(np.float64))
    return np.matmul(a.astype(object), b.astype(object))


def check_products(actual, a, b, expected, dt):
    """Compare a sum of products within rtol * (|a| @ |b|) (+ the final rounding)."""
    actual = np.asarray(actual)
    if not is_float(dt):
        assert_close(actual, wrap(expected, dt))
        return
    r = RTOL[np.dtype(dt)]
    bound = np.matmul(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))
    expected = np.asarray(expected, np.float64)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    err = np.abs(actual.astype(np.float64) - expected)
    assert (err <= r * (np.abs(expected) + bound) + 1e-300).all(), (actual, expected)


# --- matmul -----------------------------------------------------------------------------------
@st.composite
def matmul_case(draw):
    batch_a, batch_b = draw(hnp.mutually_broadcastable_shapes(
        num_shapes=2, min_dims=0, max_dims=2, min_side=0, max_side=3)).input_shapes
    m, k, n = (draw(st.integers(0, 4)) for _ in range(3))
    ta, tb = draw(st.booleans()), draw(st.booleans())
    adj_a, adj_b = draw(st.booleans()), draw(st.booleans())
    return batch_a, batch_b, m, k, n, ta, tb, adj_a, adj_b, draw(st.integers(0, 2**32 - 1))


@pytest.mark.parametrize("dtype", MATMUL_DTYPES, ids=ids(MATMUL_DTYPES))
@given(case=matmul_case())
def test_matmul(dtype, case):
    batch_a, batch_b, m, k, n, ta, tb, adj_a, adj_b, seed = case
    rng = np.random.default_rng(seed)
    # The logical operands are [.., m, k] and [.., k, n]; flags say how they are stored.
    a = rand(rng, batch_a + (m, k), dtype)
    b = rand(rng, batch_b + (k, n), dtype)
    flip_a, flip_b = ta or adj_a, tb or adj_b
    sa = np.swapaxes(a, -1, -2).copy() if flip_a else a
    sb = np.swapaxes(b, -1, -2).copy() if flip_b else b
    kw = {}
    if flip_a:
        kw["adjoint_a" if adj_a else "transpose_a"] = True
    if flip_b:
        kw["adjoint_b" if adj_b else "transpose_b"] = True
    got = tf.matmul(sa, sb, **kw)
    assert got.dtype == tf.as_dtype(dtype)
    check_products(got.numpy(), a, b, exact_matmul(a, b), dtype)
    assert got.shape == np.broadcast_shapes(batch_a, batch_b) + (m, n)
    assert tf.linalg.matmul is tf.matmul


def test_matmul_integer_wraps_and_int8_to_int32():
    c = tf.convert_to_tensor
    big = c(np.full((1, 2), 2**30, np.int32))
    assert tf.matmul(big, c(np.ones((2, 1), np.int32))).numpy().tolist() == [[-2**31]]
    a = np.array([[100, -100, 127]], np.int8)
    b = np.array([[100], [-100], [127]], np.int8)
    r = tf.matmul(a, b, output_type=tf.int32)
    assert r.dtype == tf.int32 and r.numpy().tolist() == [[100 * 100 * 2 + 127 * 127]]
    u = np.array([[255, 255]], np.uint8)
    assert tf.matmul(u, u.T.copy(), output_type=tf.int32).numpy().tolist() == [[2 * 255 * 255]]
    # output_type equal to the input dtype is the plain product.
    assert tf.matmul(c([[1.0]]), c([[2.0]]), output_type=tf.float32).numpy() == 2


def test_matmul_half_accumulates_in_float32():
    # 4096 products of 1: a float16 accumulator would stop at 2048.
    a = np.ones((1, 4096), np.float16)
    assert tf.matmul(a, a.T.copy()).numpy()[0, 0] == 4096


def test_matmul_operands_and_operator():
    c = tf.convert_to_tensor
    a = c(np.arange(6, dtype=np.float32).reshape(2, 3))
    lst = [[1], [2], [3]]
    assert (a @ lst).dtype == tf.float32  # a Python list takes the tensor's dtype
    assert_close((a @ lst).numpy(), np.arange(6, dtype=np.float32).reshape(2, 3) @ lst)
    left = np.ones((2, 2), np.float32)
    r = left @ a
    assert isinstance(r, tf.Tensor)
    assert_close(r.numpy(), left @ np.asarray(a))
    r = [[1.0, 2.0]] @ a
    assert isinstance(r, tf.Tensor) and r.shape == (1, 3)
    assert_close(tf.matmul(lst, [[1, 2]]).numpy(), np.array(lst) @ np.array([[1, 2]]))
    v = tf.Variable(np.eye(3, dtype=np.float32))
    assert_close((a @ v).numpy(), np.asarray(a))
    assert_close(tf.matmul(v, a, transpose_b=True).numpy(), np.asarray(a).T)
    # Zero-size contractions give zeros.
    assert tf.matmul(np.zeros((2, 0), np.float32), np.zeros((0, 3), np.float32)).numpy() \
        .tolist() == [[0.0] * 3] * 2
    assert tf.matmul(np.zeros((0, 3)), np.zeros((3, 0))).shape == (0, 0)


def test_matmul_nan_inf():
    a = np.array([[np.inf, 1.0]], np.float32)
    b = np.array([[0.0], [1.0]], np.float32)
    assert np.isnan(tf.matmul(a, b).numpy()[0, 0])  # inf * 0
    b2 = np.array([[1.0], [np.nan]], np.float32)
    assert np.isnan(tf.matmul(np.ones((1, 2), np.float32), b2).numpy()[0, 0])


def test_matmul_errors():
    c = tf.convert_to_tensor
    a = c(np.ones((2, 3), np.float32))
    with pytest.raises(InvalidArgumentError, match=r"ndims must be >= 2.*\[Op:matmul\]"):
        tf.matmul(c(np.ones(3, np.float32)), a)
    with pytest.raises(InvalidArgumentError, match=r"In\[1\] ndims.*\[Op:matmul\]"):
        tf.matmul(a, c(np.ones(3, np.float32)))
    with pytest.raises(InvalidArgumentError, match=r"Matrix size-incompatible.*\[Op:matmul\]"):
        tf.matmul(a, c(np.ones((4, 4), np.float32)))
    with pytest.raises(InvalidArgumentError, match=r"Matrix size-incompatible.*\[Op:matmul\]"):
        tf.matmul(a, c(np.ones((2, 4), np.float32)), transpose_b=True)
    with pytest.raises(InvalidArgumentError, match=r"batch dimensions.*\[Op:matmul\]"):
        tf.matmul(np.ones((2, 2, 3)), np.ones((3, 3, 4)))
    with pytest.raises(InvalidArgumentError, match=r"^cannot compute MatMul as input "
                       r"#1\(zero-based\) was expected to be a float tensor but is a double "
                       r"tensor \[Op:matmul\]"):
        tf.matmul(a, c(np.ones((3, 4), np.float64)))
    for dt in (np.bool_, np.int8, np.int16, np.uint8):
        x = c(np.ones((2, 2), dt))
        with pytest.raises(InvalidArgumentError, match="matmul"):
            tf.matmul(x, x)
    with pytest.raises(InvalidArgumentError, match=r"output_type.*\[Op:matmul\]"):
        tf.matmul(a, np.ones((3, 4), np.float32), output_type=tf.float64)
    with pytest.raises(InvalidArgumentError, match=r"output_type.*\[Op:matmul\]"):
        tf.matmul(c([[1]]), c([[1]]), output_type=tf.int64)
    with pytest.raises(ValueError, match="transpose_a"):
        tf.matmul(a, a, transpose_a=True, adjoint_a=True)
    with pytest.raises(ValueError, match="transpose_b"):
        tf.matmul(a, a, transpose_b=True, adjoint_b=True)
    with pytest.raises(TypeError):
        c([[1, 2]]) @ [[1.5], [2.5]]  # a Python float cannot become int32


# --- tensordot --------------------------------------------------------------------------------
def einsum_ref(a, b, axes_a, axes_b):
    """tensordot written as an explicit einsum in float64/object: an independent route."""
    eq = tensordot_equation(a.ndim, b.ndim, axes_a, axes_b)
    if is_float(a.dtype):
        return np.einsum(eq, a.astype(np.float64), b.astype(np.float64)), eq
    return np.einsum(eq, a.astype(object), b.astype(object)), eq


@st.composite
def tensordot_case(draw):
    rank_a = draw(st.integers(0, 4))
    rank_b = draw(st.integers(0, 4))
    n = draw(st.integers(0, min(rank_a, rank_b)))
    axes_a = draw(st.permutations(range(rank_a)))[:n]
    axes_b = draw(st.permutations(range(rank_b)))[:n]
    shape_a = list(draw(shapes(min_dims=rank_a, max_dims=rank_a, max_side=3)))
    shape_b = list(draw(shapes(min_dims=rank_b, max_dims=rank_b, max_side=3)))
    for i, j in zip(axes_a, axes_b):
        shape_b[j] = shape_a[i]
    form = draw(st.sampled_from(["lists", "negative", "int"]))
    return tuple(shape_a), tuple(shape_b), list(axes_a), list(axes_b), form, draw(
        st.integers(0, 2**32 - 1))


@pytest.mark.parametrize("dtype", MATMUL_DTYPES, ids=ids(MATMUL_DTYPES))
@given(case=tensordot_case())
def test_tensordot(dtype, case):
    shape_a, shape_b, axes_a, axes_b, form, seed = case
    rng = np.random.default_rng(seed)
    a, b = rand(rng, shape_a, dtype), rand(rng, shape_b, dtype)
    n = len(axes_a)
    if form == "int":
        axes_a, axes_b = list(range(a.ndim - n, a.ndim)), list(range(n))
        shape_b = tuple(shape_a[a.ndim - n:]) + tuple(shape_b[n:])
        b = rand(rng, shape_b, dtype)
        got = tf.tensordot(a, b, n)
    elif form == "negative":
        got = tf.tensordot(a, b, [[i - a.ndim for i in axes_a], [j - b.ndim for j in axes_b]])
    else:
        got = tf.tensordot(a, b, (axes_a, axes_b))
    expected, eq = einsum_ref(a, b, axes_a, axes_b)
    assert got.dtype == tf.as_dtype(dtype)
    if is_float(dtype):
        bound = np.einsum(eq, np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))
        err = np.abs(got.numpy().astype(np.float64) - expected)
        assert got.shape == expected.shape
        assert (err <= RTOL[np.dtype(dtype)] * (np.abs(expected) + bound) + 1e-300).all()
    else:
        assert_close(got.numpy(), wrap(expected, dtype))


def test_tensordot_forms():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    b = np.arange(60, dtype=np.float32).reshape(4, 3, 5)
    ref = np.einsum("ijk,kjl->il", a.astype(np.float64), b.astype(np.float64))
    assert_close(tf.tensordot(a, b, [[1, 2], [1, 0]]).numpy(), ref)
    assert_close(tf.tensordot(a, b, np.array([[2, 1], [0, 1]])).numpy(), ref)
    assert tf.tensordot(a, b, [2, 0]).shape == (2, 3, 3, 5)  # a pair of ints
    assert tf.tensordot(a, b, tf.convert_to_tensor(1)).shape == (2, 3, 3, 5)
    assert tf.tensordot(a, b, 0).shape == (2, 3, 4, 4, 3, 5)
    assert tf.tensordot(np.float32(2), np.float32(3), 0).numpy() == 6
    assert tf.tensordot(tf.convert_to_tensor([1.0, 2.0]), [3, 4], 1).numpy() == 11
    assert tf.linalg.tensordot is tf.tensordot


def test_tensordot_errors():
    a = np.ones((2, 3, 4), np.float32)
    b = np.ones((4, 3, 5), np.float32)
    with pytest.raises(ValueError, match="tensordot.*larger"):
        tf.tensordot(a, b, 4)
    with pytest.raises(ValueError, match="tensordot.*at least 0"):
        tf.tensordot(a, b, -1)
    with pytest.raises(ValueError, match="tensordot.*1 != 2"):
        tf.tensordot(a, b, [[1], [1, 2]])
    with pytest.raises(ValueError, match="tensordot.*length 2"):
        tf.tensordot(a, b, [[2]])
    with pytest.raises(TypeError, match="tensordot"):
        tf.tensordot(a, b, 1.5)
    with pytest.raises(InvalidArgumentError, match=r"size.*\[Op:tensordot\]"):
        tf.tensordot(a, b, [[0], [0]])
    with pytest.raises(InvalidArgumentError, match=r"out of bounds.*\[Op:tensordot\]"):
        tf.tensordot(a, b, [[3], [0]])
    with pytest.raises(InvalidArgumentError, match=r"repeat.*\[Op:tensordot\]"):
        tf.tensordot(a, b, [[1, 1], [1, 1]])
    with pytest.raises(InvalidArgumentError, match=r"cannot compute Tensordot .*float tensor but "
                                                   r"is a double tensor.*\[Op:tensordot\]"):
        tf.tensordot(tf.convert_to_tensor(a), tf.convert_to_tensor(b.astype(np.float64)), 1)
    with pytest.raises(InvalidArgumentError, match="tensordot"):
        tf.tensordot(np.ones(3, np.int8), np.ones(3, np.int8), 1)


# --- einsum -----------------------------------------------------------------------------------
def f64(*xs):
    return [x.astype(np.float64) for x in xs]


# (equation, input shapes, reference on float64 inputs without np.einsum)
EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)], lambda a, b: a @ b),
    ("ij,jk", [(2, 3), (3, 4)], lambda a, b: a @ b),
    ("ij,kj", [(2, 3), (4, 3)], lambda a, b: a @ b.T),
    ("ba,b", [(2, 3), (2,)], lambda a, b: b @ a),
    ("ij->ji", [(2, 3)], lambda a: a.T),
    ("ij", [(2, 3)], lambda a: a),
    ("ji", [(2, 3)], lambda a: a.T),  # implicit output is alphabetical
    ("ii->i", [(3, 3)], lambda a: np.diagonal(a)),
    ("ii", [(3, 3)], lambda a: np.trace(a)),
    ("ij->", [(2, 3)], lambda a: a.sum()),
    ("ij->j", [(2, 3)], lambda a: a.sum(0)),
    ("i,j->ij", [(3,), (2,)], lambda a, b: np.multiply.outer(a, b)),
    ("i,i->", [(3,), (3,)], lambda a, b: (a * b).sum()),
    ("i,i,i->", [(3,), (3,), (3,)], lambda a, b, c: (a * b * c).sum()),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)], lambda a, b: a @ b),
    ("...ij,...jk->...ik", [(5, 1, 2, 3), (4, 3, 6)], lambda a, b: a @ b),
    ("...,...->...", [(2, 3), (3,)], lambda a, b: a * b),
    ("i...->...", [(2, 3, 4)], lambda a: a.sum(0)),
    ("...i,...i", [(2, 3), (2, 3)], lambda a, b: (a * b).sum(-1)),
    ("i j , j k -> i k", [(2, 3), (3, 4)], lambda a, b: a @ b),
    ("aB,Bc->ac", [(2, 3), (3, 2)], lambda a, b: a @ b),
    ("ij,jk->ik", [(0, 3), (3, 4)], lambda a, b: a @ b),
    ("ij,jk->ik", [(2, 0), (0, 4)], lambda a, b: a @ b),
    ("ii,i->i", [(3, 3), (3,)], lambda a, b: np.diagonal(a) * b),
    ("ij,ij->", [(2, 3), (2, 3)], lambda a, b: (a * b).sum()),
    ("bij,jk->bki", [(2, 3, 4), (4, 5)], lambda a, b: np.swapaxes(a @ b, -1, -2)),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)], lambda a, b: a @ np.swapaxes(b, -1, -2)),
]


@pytest.mark.parametrize("dtype", MATMUL_DTYPES, ids=ids(MATMUL_DTYPES))
@pytest.mark.parametrize("eq,in_shapes,ref", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum(eq, in_shapes, ref, dtype):
    rng = np.random.default_rng(len(eq))
    xs = [rand(rng, s, dtype) for s in in_shapes]
    got = tf.einsum(eq, *xs)
    assert got.dtype == tf.as_dtype(dtype)
    exp = np.asarray(ref(*f64(*xs)))
    if is_float(dtype):
        bound = np.asarray(ref(*[np.abs(x) for x in f64(*xs)]))
        err = np.abs(got.numpy().astype(np.float64) - exp)
        assert got.shape == exp.shape
        assert (err <= RTOL[np.dtype(dtype)] * (np.abs(exp) + bound) + 1e-300).all()
    else:
        assert_close(got.numpy(), exp.astype(dtype))


def test_einsum_aliases_and_inputs():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert tf.linalg.einsum is tf.einsum
    assert_close(tf.einsum("ij->i", a).numpy(), a.sum(1))
    # Python lists take the tensor operand's dtype.
    r = tf.einsum("ij,j->i", tf.convert_to_tensor(a), [1, 1, 1])
    assert r.dtype == tf.float32
    assert_close(r.numpy(), a.sum(1))
    assert tf.einsum("i->", [1.0, 2.0]).numpy() == 3
    assert_close(tf.einsum("ij,jk->ik", [a, a.T.copy()]).numpy(), a @ a.T)


def test_einsum_errors():
    a = np.ones((2, 3), np.float32)
    with pytest.raises(InvalidArgumentError, match=r"2 inputs, got 1.*\[Op:einsum\]"):
        tf.einsum("ij,jk->ik", a)
    with pytest.raises(InvalidArgumentError, match=r"label 'j'.*\[Op:einsum\]"):
        tf.einsum("ij,jk->ik", a, np.ones((4, 4), np.float32))
    with pytest.raises(InvalidArgumentError, match=r"label 'i'.*\[Op:einsum\]"):
        tf.einsum("ij,ij->ij", a, np.ones((1, 3), np.float32))  # no size-1 broadcasting
    with pytest.raises(InvalidArgumentError, match=r"'k' is not in any input.*\[Op:einsum\]"):
        tf.einsum("ij->k", a)
    with pytest.raises(InvalidArgumentError, match=r"more than once.*\[Op:einsum\]"):
        tf.einsum("ij->ii", a)
    with pytest.raises(InvalidArgumentError, match=r"rank 3.*\[Op:einsum\]"):
        tf.einsum("ijk->ij", a)
    with pytest.raises(InvalidArgumentError, match=r"no ellipsis.*\[Op:einsum\]"):
        tf.einsum("...ij->ij", np.ones((4, 2, 3), np.float32))
    with pytest.raises(InvalidArgumentError, match=r"cannot compute Einsum .*float tensor but "
                                                   r"is a double tensor.*\[Op:einsum\]"):
        tf.einsum("i,i->", np.ones(3, np.float32), np.ones(3, np.float64))
    with pytest.raises(InvalidArgumentError, match="einsum"):
        tf.einsum("i,i->", np.ones(3, bool), np.ones(3, bool))
    for bad in ("i1->i", "i.j->ij", "i......->i", "i->i->i", "i->i,i", "i->1"):
        with pytest.raises(ValueError, match="einsum"):
            tf.einsum(bad, np.ones(3, np.float32))
    with pytest.raises(TypeError, match="einsum"):
        tf.einsum(3, np.ones(3, np.float32))
    with pytest.raises(ValueError, match="einsum"):
        tf.einsum("i->i")
    with pytest.raises(TypeError, match="einsum"):
        tf.einsum("i->i", np.ones(3), bogus=1)


# --- top_k ------------------------------------------------------------------------------------
TOPK_DTYPES = MATMUL_DTYPES + [np.int8, np.int16, np.uint8]


def ref_top_k(x, k):
    """Largest first; among equal values the lower index first; NaN above everything."""
    rows = x.reshape(-1, x.shape[-1]) if x.size else np.zeros((0, x.shape[-1]), x.dtype)
    vals, idxs = [], []
    for row in rows:
        def key(i):
            v = float(row[i])
            return (0 if np.isnan(v) else 1, -v if not np.isnan(v) else 0.0, i)
        order = sorted(range(len(row)), key=key)[:k]
        idxs.append(order)
        vals.append([row[i] for i in order])
    shape = x.shape[:-1] + (k,)
    return (np.array(vals, dtype=x.dtype).reshape(shape),
            np.array(idxs, dtype=np.int64).reshape(shape))


@pytest.mark.parametrize("dtype", TOPK_DTYPES, ids=ids(TOPK_DTYPES))
@given(data=st.data(), index_type=st.sampled_from([None, tf.int32, tf.int64, tf.int16]))
def test_top_k(dtype, data, index_type):
    shape = data.draw(shapes(min_dims=1, max_dims=3, max_side=6))
    k = data.draw(st.integers(0, shape[-1]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = rand(rng, shape, dtype)
    if is_float(dtype) and x.size:
        x.reshape(-1)[rng.integers(x.size, size=2)] = [np.nan, -np.inf]
    kw = {} if index_type is None else {"index_type": index_type}
    res = tf.math.top_k(x, k=k, **kw)
    values, indices = res
    assert res.values is values and res.indices is indices
    assert indices.dtype == (index_type or tf.int32) and values.dtype == tf.as_dtype(dtype)
    ev, ei = ref_top_k(x, k)
    assert_close(values.numpy(), ev)
    assert_close(indices.numpy(), ei.astype(indices.dtype.np))


def test_top_k_examples():
    x = tf.convert_to_tensor([[3.0, 1.0, 3.0, 2.0], [np.nan, 1.0, -np.inf, 5.0]])
    v, i = tf.math.top_k(x, 2)
    assert i.numpy().tolist() == [[0, 2], [0, 3]]
    assert v.numpy()[0].tolist() == [3.0, 3.0] and np.isnan(v.numpy()[1, 0])
    assert tf.math.top_k(x).values.shape == (2, 1)  # k defaults to 1
    assert tf.math.top_k(x, k=tf.convert_to_tensor(1)).indices.shape == (2, 1)
    assert tf.math.top_k(x, 0).values.shape == (2, 0)
    assert tf.math.top_k(np.zeros((3, 0), np.float32), 0).values.shape == (3, 0)
    assert tf.math.top_k(x, 3, sorted=False).values.shape == (2, 3)
    assert tf.nn.top_k is tf.math.top_k
    assert type(tf.math.top_k(x)).__name__ == "TopKV2"


def test_top_k_errors():
    x = np.ones((2, 4), np.float32)
    with pytest.raises(InvalidArgumentError, match=r"at least k columns.*\[Op:top_k\]"):
        tf.math.top_k(x, 5)
    with pytest.raises(InvalidArgumentError, match=r"k >= 0.*\[Op:top_k\]"):
        tf.math.top_k(x, -1)
    with pytest.raises(InvalidArgumentError, match=r">= 1-D.*\[Op:top_k\]"):
        tf.math.top_k(np.float32(3), 1)
    with pytest.raises(InvalidArgumentError, match=r"bool.*\[Op:top_k\]"):
        tf.math.top_k(np.ones(3, bool), 1)
    with pytest.raises(InvalidArgumentError, match=r"index_type.*\[Op:top_k\]"):
        tf.math.top_k(x, 1, index_type=tf.float32)
    with pytest.raises(TypeError, match="top_k"):
        tf.math.top_k(x, 1.5)


# --- inference with unknown dims --------------------------------------------------------------
def infer(name, types, **attrs):
    opdef = OPS[name]
    return opdef.infer(types, opdef.resolve_attrs(attrs))


def test_inference_with_unknown_dims():
    f = tf.float32
    assert infer("matmul", [TT(f, (None, 2, 3)), TT(f, (3, None))]) == TT(f, (None, 2, None))
    assert infer("matmul", [TT(f, (None, None)), TT(f, (4, 5))]) == TT(f, (None, 5))
    assert infer("matmul", [TT(f, (2, 3)), TT(f, (2, 5))], transpose_a=True) == TT(f, (3, 5))
    assert infer("matmul", [TT(f, None), TT(f, (4, 5))]) == TT(f, None)
    assert infer("matmul", [TT(f, (1, None, 3)), TT(f, (7, 3, 2))]) == TT(f, (7, None, 2))
    assert infer("tensordot", [TT(f, (None, 3)), TT(f, (3, None))], a_axes=(-1,),
                 b_axes=(0,)) == TT(f, (None, None))
    assert infer("tensordot", [TT(f, None), TT(f, (3,))], a_axes=(-1,), b_axes=(0,)) == \
        TT(f, None)
    assert infer("einsum", [TT(f, (None, 3)), TT(f, (3, None))], equation="ij,jk->ki") == \
        TT(f, (None, None))
    assert infer("einsum", [TT(f, (None, 3)), TT(f, (4, 3))], equation="ij,kj->ik") == \
        TT(f, (None, 4))
    assert infer("einsum", [TT(f, None), TT(f, (4, 3))], equation="...j,kj->...k") == \
        TT(f, None)
    assert infer("einsum", [TT(f, None), TT(f, (4, 3))], equation="ij,kj->ik") == \
        TT(f, (None, 4))
    assert infer("top_k", [TT(f, (None, None))], k=3) == (TT(f, (None, 3)),
                                                          TT(tf.int32, (None, 3)))
    assert infer("top_k", [TT(f, None)], k=3) == (TT(f, None), TT(tf.int32, None))
    for name, types, attrs in [
        ("matmul", [TT(f, (None, 2)), TT(f, (3, None))], {}),
        ("matmul", [TT(f, (2,)), TT(f, None)], {}),
        ("tensordot", [TT(f, (None, 3)), TT(f, (4,))], {"a_axes": (1,), "b_axes": (0,)}),
        ("einsum", [TT(f, (None, 3)), TT(f, (4, 3))], {"equation": "ij,ji->"}),
        ("top_k", [TT(f, (None, 2))], {"k": 3}),
    ]:
        with pytest.raises(InferenceError):
            infer(name, types, **attrs)


@settings(max_examples=10)
@given(st.lists(st.sampled_from("abcd"), min_size=1, max_size=3))
def test_einsum_canonical_form_is_explicit(labels):
    from flowjit.ir.ops.linalg import canonical_einsum
    eq = "".join(labels)
    canon = canonical_einsum(eq)
    lhs, rhs = canon.split("->")
    assert lhs == eq
    assert rhs == "".join(sorted(c for c in set(labels) if labels.count(c) == 1))
    assert list(rhs) == sorted(rhs)
