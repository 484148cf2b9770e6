"""Array family under jit_compile=True: every op's StableHLO lowering against the eager NumPy
kernels and an independent NumPy reference.

Data-movement ops must match bit for bit (floats compared as raw bits, so -0.0, NaN and
bfloat16/float16 payloads count). Out-of-range indices are where XLA and the kernels differ by
design: XLA clamps gather indices and drops scatter updates, the kernels raise.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flowjit as tf
from flowjit.errors import InvalidArgumentError, UnimplementedError
from flowjit.lowering.stablehlo import RULES
from flowjit.ir.registry import OPS

from helpers import assert_close, rand

BF16 = ml_dtypes.bfloat16
MOVE_DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.int64, np.float16, BF16, np.float32,
               np.float64]


# --- running and comparing ----------------------------------------------------------------
def _np(result):
    if isinstance(result, (list, tuple)):
        return [_np(r) for r in result]
    return np.asarray(result.numpy())


def run_xla(fn, *arrays):
    """`fn` under tf.function(jit_compile=True) on `arrays`.

    64-bit arrays are traced in as constants rather than passed as arguments: runtime.xla's
    to_device currently narrows int64/float64 host arrays to 32 bits (jax_enable_x64 is off),
    which PJRT rejects. Constants still exercise the same lowering rules."""
    wide = [np.dtype(a.dtype).itemsize == 8 for a in arrays]

    def traced(*ts):
        it = iter(ts)
        return fn(*[tf.constant(a) if w else next(it) for a, w in zip(arrays, wide)])

    f = tf.function(traced, jit_compile=True)
    return _np(f(*[tf.constant(a) for a, w in zip(arrays, wide) if not w]))


def run_eager(fn, *arrays):
    return _np(fn(*[tf.constant(a) for a in arrays]))


def bits(a):
    a = np.asarray(a)
    if a.dtype == np.bool_:
        return a
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def assert_same(actual, expected):
    """Same dtype, shape and bits (recursing into lists)."""
    if isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_same(a, e)
        return
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    np.testing.assert_array_equal(bits(actual), bits(expected))


def check(fn, ref, *arrays):
    """jit == eager == NumPy reference, bit for bit."""
    got = run_xla(fn, *arrays)
    assert_same(got, run_eager(fn, *arrays))
    assert_same(got, ref(*arrays))
    return got


def data(shape, dtype, seed=0, low=-3, high=3):
    return rand(np.random.default_rng(seed), shape, dtype, low, high)


def special_floats(shape, dtype, seed=0):
    """Random values with -0.0, NaN and infinities mixed in."""
    x = data(shape, np.float32, seed).reshape(-1)
    specials = np.array([-0.0, 0.0, np.nan, np.inf, -np.inf], np.float32)
    if x.size:
        pick = np.random.default_rng(seed + 1).random(x.size) < 0.3
        x[pick] = np.resize(specials, pick.sum())
    return x.reshape(shape).astype(dtype)


def test_every_array_op_has_a_rule():
    names = [n for n, d in OPS.items() if d.family == "array"]
    assert "strided_slice" in names and "argsort" in names
    missing = [n for n in names if f"df.{n}" not in RULES]
    assert not missing, missing


# --- constants, identity, reshaping -------------------------------------------------------
@pytest.mark.parametrize("dtype", MOVE_DTYPES, ids=lambda d: np.dtype(d).name)
def test_const(dtype):
    vals = special_floats((3, 4), dtype) if np.dtype(dtype).kind == "f" or dtype is BF16 \
        else data((3, 4), dtype)
    uniform = np.full((2, 5), vals.reshape(-1)[0], dtype)
    empty = np.zeros((0, 3), dtype)
    scalar = vals.reshape(-1)[1:2].reshape(())

    def fn():
        return [tf.constant(v) for v in (vals, uniform, empty, scalar)]
    assert_same(run_xla(fn), [vals, uniform, empty, scalar])


def test_const_keeps_signed_zeros_and_nan_payloads():
    # Equal under == but not the same bits: a splat would lose them.
    zeros = np.array([0.0, -0.0, 0.0], np.float32)
    nans = np.array([np.nan, np.nan], np.float32)
    nans.view(np.uint32)[1] |= 1
    assert_same(run_xla(lambda: [tf.constant(zeros), tf.constant(nans)]), [zeros, nans])


@pytest.mark.parametrize("dtype,shape", [
    (np.bool_, (2, 3, 4)), (np.int8, (2, 3, 4)), (np.uint8, (1, 3, 1)), (BF16, (2, 3, 4)),
    (np.float16, (2, 0, 4)), (np.float32, (4, 1, 3)), (np.int64, (2, 3, 4))],
    ids=lambda v: str(v) if isinstance(v, tuple) else np.dtype(v).name)
def test_identity_and_reshaping(dtype, shape):
    x = data(shape, dtype)
    a, b, c = shape

    def fn(t):
        return [tf.identity(t), tf.stop_gradient(t), tf.reshape(t, (-1,)),
                tf.reshape(t, (c, -1)), tf.transpose(t), tf.transpose(t, (1, -1, 0)),
                tf.expand_dims(t, -1), tf.expand_dims(t, 0), tf.squeeze(t),
                tf.squeeze(tf.expand_dims(t, 2), [-2]),
                tf.broadcast_to(t[:, :1], (2, a, 3 if b else 0, c)),
                tf.zeros_like(t), tf.ones_like(t)]

    def ref(x):
        return [x, x, x.reshape(-1), x.reshape(c, -1), x.transpose(),
                x.transpose(1, 2, 0), x[..., None], x[None], np.squeeze(x), x,
                np.broadcast_to(x[:, :1], (2, a, 3 if b else 0, c)),
                np.zeros_like(x), np.ones_like(x)]
    check(fn, ref, x)


def test_fill_like_other_dtype_and_broadcast_of_scalar():
    x = data((3, 2), np.float32)

    def fn(t):
        return [tf.zeros_like(t, dtype=tf.int8), tf.ones_like(t, dtype=tf.bool),
                tf.ones_like(t, dtype=tf.bfloat16), tf.fill((2, 0, 3), 5.0),
                tf.broadcast_to(t[0, 0], (4, 5)), tf.zeros((2, 3), tf.int64)]

    def ref(x):
        return [np.zeros((3, 2), np.int8), np.ones((3, 2), bool), np.ones((3, 2), BF16),
                np.full((2, 0, 3), 5, np.float32), np.full((4, 5), x[0, 0]),
                np.zeros((2, 3), np.int64)]
    check(fn, ref, x)


# --- joining and splitting ----------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.bool_, np.int16, BF16, np.float32],
                         ids=lambda d: np.dtype(d).name)
def test_concat_split_tile_reverse_slice(dtype):
    x = data((3, 4, 5), dtype, seed=1)
    y = data((3, 2, 5), dtype, seed=2)
    z = np.zeros((3, 0, 5), dtype)

    def fn(x, y, z):
        return [tf.concat([x, y, z], 1), tf.concat([y, x], -2), tf.concat([x, x[:1]], 0),
                *tf.split(x, [1, -1, 0, 2], axis=-1), *tf.split(x, 2, axis=1),
                *tf.split(x, 1, axis=0), *tf.split(z, 3, axis=0),
                tf.tile(x, (2, 1, 3)), tf.tile(x, (1, 0, 2)), tf.tile(y, (1, 1, 1)),
                tf.reverse(x, [0, -1]), tf.reverse(x, [1]), tf.reverse(x, []),
                tf.reverse(z, [1]),
                tf.slice(x, [1, 0, 2], [-1, 2, -1]), tf.slice(x, [0, 4, 0], [3, 0, 5]),
                tf.slice(x, [2, 3, 4], [1, 1, 1])]

    def ref(x, y, z):
        return [np.concatenate([x, y, z], 1), np.concatenate([y, x], 1),
                np.concatenate([x, x[:1]], 0),
                x[..., :1], x[..., 1:3], x[..., 3:3], x[..., 3:], x[:, :2], x[:, 2:], x,
                z[:1], z[1:2], z[2:],
                np.tile(x, (2, 1, 3)), np.tile(x, (1, 0, 2)), y,
                x[::-1, :, ::-1], x[:, ::-1], x, z,
                x[1:, 0:2, 2:], x[:, 4:4, :], x[2:3, 3:4, 4:5]]
    check(fn, ref, x, y, z)


def test_stack_unstack_compose_from_array_primitives():
    x = data((3, 4), np.int32)
    check(lambda t: [tf.stack([t, t * 2], axis=-1), *tf.unstack(t, axis=1)],
          lambda x: [np.stack([x, x * 2], -1), *[x[:, i] for i in range(4)]], x)


# --- pad ----------------------------------------------------------------------------------
_PADS = [[1, 2], [0, 3], [2, 0]]


@pytest.mark.parametrize("mode,dtype", [
    (m, d) for m in ("CONSTANT", "REFLECT", "SYMMETRIC") for d in (np.float32, BF16)] + [
    ("CONSTANT", np.int8), ("CONSTANT", np.bool_), ("SYMMETRIC", np.int8),
    ("SYMMETRIC", np.bool_), ("REFLECT", np.uint8)],
    ids=lambda v: v if isinstance(v, str) else np.dtype(v).name)
def test_pad(mode, dtype):
    x = data((3, 4, 3), dtype)
    cv = {np.bool_: True, np.int8: -7}.get(dtype, 2.5)
    np_mode = mode.lower()

    def fn(t):
        outs = [tf.pad(t, _PADS, mode=mode),
                tf.pad(t, [[0, 0], [3, 3], [0, 0]], mode=mode),
                tf.pad(t[:1], [[0, 0], [1, 1], [2, 2]], mode=mode)]
        if mode == "CONSTANT":
            outs += [tf.pad(t, _PADS, constant_values=cv),
                     tf.pad(t[:, :0], [[1, 0], [2, 1], [0, 1]], constant_values=cv)]
        return outs

    def ref(x):
        outs = [np.pad(x, _PADS, mode=np_mode), np.pad(x, [[0, 0], [3, 3], [0, 0]], np_mode),
                np.pad(x[:1], [[0, 0], [1, 1], [2, 2]], mode=np_mode)]
        if mode == "CONSTANT":
            outs += [np.pad(x, _PADS, constant_values=cv),
                     np.pad(x[:, :0], [[1, 0], [2, 1], [0, 1]], constant_values=cv)]
        return outs
    check(fn, ref, x)


def test_pad_of_a_scalar_and_of_width_one_dims():
    x = data((1, 5), np.float32)
    check(lambda t: [tf.pad(t[0, 0], []), tf.pad(t, [[1, 1], [4, 4]], mode="SYMMETRIC"),
                     tf.pad(t, [[0, 0], [4, 4]], mode="REFLECT")],
          lambda x: [x[0, 0], np.pad(x, [[1, 1], [4, 4]], "symmetric"),
                     np.pad(x, [[0, 0], [4, 4]], "reflect")], x)


# --- strided slices and tensor[...] -------------------------------------------------------
_SPECS = [
    (slice(1, None),), (slice(None, None, -1),), (Ellipsis, 0),
    (slice(None), None, slice(2, -1, 2)), (-1,), (slice(None, None, -2), slice(1, None, 3)),
    (slice(5, 1, -1),), (Ellipsis, None), (0, Ellipsis, -1), (slice(-100, 100),),
    (slice(3, 1),), (slice(None), slice(None, None, -3), slice(-2, None, -2)),
    (None, 1, None, slice(None, None, 2), Ellipsis), (slice(-1, -100, -1), 2),
    (Ellipsis,), (slice(1, 2), slice(None), slice(4, 5)),
]


@pytest.mark.parametrize("dtype,shape", [(np.float32, (4, 5, 6)), (BF16, (3, 6, 7)),
                                         (np.bool_, (6, 4, 3)), (np.int64, (5, 3, 4))],
                         ids=lambda v: str(v) if isinstance(v, tuple) else np.dtype(v).name)
def test_getitem_expressions(dtype, shape):
    x = data(shape, dtype)
    check(lambda t: [t[s] for s in _SPECS], lambda x: [x[s] for s in _SPECS], x)


def test_getitem_with_tensor_indices_and_zero_size_dims():
    x = data((4, 0, 3), np.float16)

    def fn(t):
        i = tf.constant(2)
        return [t[i], t[-1, :, ::-1], t[1:i, ..., tf.newaxis], t[::2, 5:, 1]]
    check(fn, lambda x: [x[2], x[-1, :, ::-1], x[1:2, ..., None], x[::2, 5:, 1]], x)


def test_strided_slice_api_masks():
    x = data((4, 5, 6), np.int32)

    def fn(t):
        return [
            tf.strided_slice(t, [0, 1], [0, -1], [1, 2], begin_mask=1, end_mask=1),
            tf.strided_slice(t, [1, 0, 0], [2, 0, 0], [1, 1, -1], shrink_axis_mask=1,
                             new_axis_mask=2, end_mask=4, begin_mask=4),
            tf.strided_slice(t, [0, 3], [0, 0], [1, -1], ellipsis_mask=1),
            tf.strided_slice(t, [-1, 0, 2], [-5, 0, 3], [-2, 1, 1], begin_mask=2,
                             end_mask=2, shrink_axis_mask=4)]

    def ref(x):
        return [x[:, 1:-1:2], x[1, None, ::-1], x[..., 3:0:-1], x[-1:-5:-2, :, 2]]
    check(fn, ref, x)


def _spec_strategy(shape):
    """A random valid TF slice spec for `shape`: items before an optional ellipsis index dims
    from the front, items after it dims from the back; new axes anywhere. Ints stay in
    range (the kernels raise for others)."""
    rank = len(shape)

    @st.composite
    def spec(draw):
        def item(d):
            if d > 0 and draw(st.integers(0, 2)) == 0:
                return draw(st.integers(-d, d - 1))
            bound = st.one_of(st.none(), st.integers(-d - 2, d + 2))
            step = st.one_of(st.none(), st.sampled_from([-3, -2, -1, 1, 2, 3]))
            return slice(draw(bound), draw(bound), draw(step))

        def with_new_axes(items):
            for _ in range(draw(st.integers(0, 1))):
                items.insert(draw(st.integers(0, len(items))), None)
            return items

        n_front = draw(st.integers(0, rank))
        ellipsis = draw(st.booleans())
        n_back = draw(st.integers(0, rank - n_front)) if ellipsis else 0
        front = with_new_axes([item(shape[i]) for i in range(n_front)])
        back = with_new_axes([item(shape[rank - n_back + i]) for i in range(n_back)])
        items = front + [Ellipsis] * ellipsis + back
        return tuple(items) if items else (None,)
    return spec()


@settings(max_examples=20)
@given(st.data())
def test_getitem_random_specs(hyp):
    shape = hyp.draw(st.lists(st.integers(0, 5), min_size=1, max_size=4).map(tuple))
    dtype = hyp.draw(st.sampled_from([np.float32, np.int8, BF16, np.bool_]))
    specs = [hyp.draw(_spec_strategy(shape)) for _ in range(4)]
    x = data(shape, dtype, seed=len(specs))
    check(lambda t: [t[s] for s in specs], lambda x: [x[s] for s in specs], x)


# --- gather -------------------------------------------------------------------------------
def np_gather(p, idx, axis, bd):
    """Independent reference: a loop over the batch of np.take."""
    batch = p.shape[:bd]
    rows = [np.take(p[b], idx[b], axis=axis - bd) for b in np.ndindex(*batch)]
    inner = p.shape[bd:axis] + idx.shape[bd:] + p.shape[axis + 1:]
    if not rows:
        return np.zeros(batch + inner, p.dtype)
    return np.stack(rows).reshape(batch + inner)


@pytest.mark.parametrize("pshape,ishape,axis,bd,idx_dtype,dtype", [
    ((5, 3), (4,), 0, 0, np.int32, np.float32),
    ((5, 3), (2, 2), -1, 0, np.int16, BF16),
    ((2, 5, 3), (2, 4), 1, 1, np.int32, np.bool_),
    ((2, 5, 3), (2, 4), -1, -1, np.int32, np.int32),
    ((2, 3, 5, 2), (2, 3, 2, 2), 2, 2, np.int64, np.int8),
    ((2, 4, 5, 3), (2, 3), 2, 1, np.int32, np.float16),
    ((3, 4), (), 1, 0, np.int32, np.uint8),
    ((0, 3), (0, 2), 0, 0, np.int32, np.float32),
    ((3, 0), (2,), 0, 0, np.int64, np.float32),
], ids=str)
def test_gather(pshape, ishape, axis, bd, idx_dtype, dtype):
    p = data(pshape, dtype, seed=3)
    ax, b = axis % len(pshape), bd % max(len(ishape), 1)
    n = pshape[ax]
    idx = np.random.default_rng(4).integers(0, max(n, 1), size=ishape).astype(idx_dtype)
    check(lambda p, i: tf.gather(p, i, axis=axis, batch_dims=bd),
          lambda p, i: np_gather(p, i, ax, b), p, idx)


def test_gather_out_of_range_indices_clamp_under_xla():
    # XLA clamps each index into [0, n-1] (as TF's XLA gather does); eager raises.
    p = data((4, 3), np.float32)
    idx = np.array([[0, -1], [4, 9], [3, -7]], np.int32)
    fn = lambda p, i: [tf.gather(p, i), tf.gather(p, i, axis=1)]  # noqa: E731
    with pytest.raises(InvalidArgumentError, match="gather"):
        run_eager(fn, p, idx)
    got = run_xla(fn, p, idx)
    assert_same(got, [np.take(p, np.clip(idx, 0, 3), axis=0),
                      np.take(p, np.clip(idx, 0, 2), axis=1)])


# --- gather_nd ----------------------------------------------------------------------------
def np_gather_nd(p, idx, bd):
    batch = p.shape[:bd]
    k = idx.shape[-1]
    mid = idx.shape[bd:-1]
    out = np.zeros(batch + mid + p.shape[bd + k:], p.dtype)
    for b in np.ndindex(*batch):
        for m in np.ndindex(*mid):
            out[b + m] = p[b][tuple(idx[b + m])]
    return out


@pytest.mark.parametrize("pshape,ishape,bd,dtype", [
    ((4, 5), (3, 2), 0, np.float32), ((4, 5, 2), (2, 3, 1), 0, BF16),
    ((3, 4, 5), (3, 2, 2), 1, np.int8), ((2, 3, 4), (2, 3, 1), 2, np.bool_),
    ((3, 4), (2, 0), 0, np.float16), ((3, 0, 2), (4, 1), 0, np.int64),
], ids=str)
def test_gather_nd(pshape, ishape, bd, dtype):
    p = data(pshape, dtype, seed=5)
    k = ishape[-1]
    dims = np.array(pshape[bd:bd + k])
    idx = (np.random.default_rng(6).integers(0, 1 << 20, size=ishape) % np.maximum(dims, 1))
    check(lambda p, i: tf.gather_nd(p, i, batch_dims=bd),
          lambda p, i: np_gather_nd(p, i, bd), p, idx.astype(np.int32))


def test_gather_nd_out_of_range_indices_clamp_under_xla():
    p = data((3, 4, 2), np.float32)
    idx = np.array([[5, 1], [-2, 3], [1, 7], [2, 2]], np.int32)
    fn = lambda p, i: tf.gather_nd(p, i)  # noqa: E731
    with pytest.raises(InvalidArgumentError, match="gather_nd"):
        run_eager(fn, p, idx)
    clamped = np.clip(idx, 0, np.array([2, 3]))
    assert_same(run_xla(fn, p, idx), np_gather_nd(p, clamped, 0))


# --- scatter ------------------------------------------------------------------------------
def np_scatter(base, idx, upd, mode):
    """Rows applied in order; out-of-range rows skipped (XLA's behaviour)."""
    out = base.copy()
    k = idx.shape[-1]
    rows = idx.reshape(-1, k)
    upd = upd.reshape((rows.shape[0],) + base.shape[k:])
    for r, u in zip(rows, upd):
        if np.any(r < 0) or np.any(r >= base.shape[:k]):
            continue
        at = tuple(r)
        if mode == "update":
            out[at] = u
        elif out.dtype == np.bool_:
            out[at] = out[at] | u
        else:
            out[at] = out[at] + u
    return out


def _scatter_case(shape, n_lead, k, dtype, seed, hi=None):
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, hi or 2, size=n_lead + (k,)) % np.array(shape[:k])
    upd = rand(rng, n_lead + tuple(shape[k:]), dtype, -4, 4)
    base = rand(rng, shape, dtype, -4, 4)
    return base, idx.astype(np.int32), upd


@pytest.mark.parametrize("shape,n_lead,k,dtype", [
    ((4, 3), (6,), 1, np.float32), ((3, 4, 2), (2, 5), 2, np.int32),
    ((3, 3), (7,), 2, np.bool_), ((5,), (9,), 1, np.int8), ((2, 3, 4), (4,), 3, np.float64),
    ((4, 2), (0,), 1, np.float32), ((0, 3), (0,), 1, np.int32),
], ids=str)
def test_scatter_nd_and_tensor_scatter_nd_add_accumulate_duplicates(shape, n_lead, k, dtype):
    base, idx, upd = _scatter_case(shape, n_lead, k, dtype, seed=7)
    zeros = np.zeros(shape, dtype)

    def fn(b, i, u):
        outs = [tf.scatter_nd(i, u, shape)]
        if dtype is not np.bool_:
            outs.append(tf.tensor_scatter_nd_add(b, i, u))
        return outs

    def ref(b, i, u):
        outs = [np_scatter(zeros, i, u, "add")]
        if dtype is not np.bool_:
            outs.append(np_scatter(b, i, u, "add"))
        return outs
    got = run_xla(fn, base, idx, upd)
    if dtype in (np.float32, np.float64):
        # Duplicate rows may be summed in another order: a few ulps.
        for g, e in zip(got, run_eager(fn, base, idx, upd)):
            assert_close(g, e, rtol=1e-6 if dtype == np.float32 else 1e-14)
        for g, e in zip(got, ref(base, idx, upd)):
            assert_close(g, e, rtol=1e-6 if dtype == np.float32 else 1e-14)
    else:
        assert_same(got, run_eager(fn, base, idx, upd))
        assert_same(got, ref(base, idx, upd))


@pytest.mark.parametrize("shape,n_lead,k,dtype", [
    ((4, 3), (12,), 1, np.float32), ((3, 4, 2), (3, 6), 2, BF16), ((3, 3), (10,), 2, np.bool_),
    ((6,), (40,), 1, np.int64), ((2, 2), (1,), 2, np.uint8), ((3, 2), (0,), 1, np.float16),
], ids=str)
def test_tensor_scatter_nd_update_last_duplicate_wins(shape, n_lead, k, dtype):
    base, idx, upd = _scatter_case(shape, n_lead, k, dtype, seed=8, hi=3)
    check(lambda b, i, u: tf.tensor_scatter_nd_update(b, i, u),
          lambda b, i, u: np_scatter(b, i, u, "update"), base, idx, upd)


def test_scatter_out_of_range_updates_are_dropped_under_xla():
    # XLA skips updates whose index is out of range (as TF's XLA scatter does); eager raises.
    base = data((4, 3), np.float32)
    idx = np.array([[1], [4], [-1], [2], [1], [7], [-5]], np.int32)
    upd = data((7, 3), np.float32, seed=9)
    for name, fn, mode, b in [
            ("scatter_nd", lambda b, i, u: tf.scatter_nd(i, u, (4, 3)), "add",
             np.zeros((4, 3), np.float32)),
            ("tensor_scatter_nd_add", tf.tensor_scatter_nd_add, "add", base),
            ("tensor_scatter_nd_update", tf.tensor_scatter_nd_update, "update", base)]:
        with pytest.raises(InvalidArgumentError, match=name):
            run_eager(fn, base, idx, upd)
        assert_close(run_xla(fn, base, idx, upd), np_scatter(b, idx, upd, mode))


# --- where_indices ------------------------------------------------------------------------
def test_where_indices_is_unimplemented_under_xla_with_a_clear_message():
    c = np.array([[True, False], [True, True]])

    def fn(t):
        return tf.shape(tf.where(t))  # the line the error must name

    line = fn.__code__.co_firstlineno + 1
    with pytest.raises(UnimplementedError) as e:
        run_xla(fn, c)
    msg = str(e.value)
    assert "where_indices" in msg and f"test_xla_array.py:{line}" in msg
    assert "3-argument" in msg
    # The 3-argument form is an elementwise select and compiles.
    x = data((2, 2), np.float32)
    check(lambda t, x: tf.where(t, x, -x), lambda t, x: np.where(t, x, -x), c, x)


# --- generators and shape queries ---------------------------------------------------------
_RANGES = [(10,), (3, 17, 4), (10, 1, -3), (-5, -5), (0.5, 3.0, 0.25), (1.1, -7.3, -0.37),
           (0.0, 1.0, 0.1)]


def np_range(start, limit, delta, dtype):
    """TF's range: floats count the elements in the dtype, from bounds rounded to it."""
    if np.dtype(dtype).kind == "i":
        n = max(0, -(-(limit - start) // delta))
        return np.array([start + i * delta for i in range(n)], dtype)
    s, l, d = (np.asarray(v).astype(dtype) for v in (start, limit, delta))
    n = int(np.ceil(np.abs((l - s) / d).astype(np.float64)))
    s, d = float(s), float(d)
    return np.array([s + i * d for i in range(n)], np.float64).astype(dtype)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.float16, BF16, np.float32,
                                   np.float64], ids=lambda d: np.dtype(d).name)
def test_range(dtype):
    int_dt = np.dtype(dtype).kind == "i"
    cases = [c if len(c) == 3 else ((0,) + c + (1,) if len(c) == 1 else c + (1,))
             for c in _RANGES]
    cases = [c for c in cases if not int_dt or all(float(v).is_integer() for v in c)]
    tf_dt = tf.as_dtype(dtype)

    def fn():
        return [tf.range(*c, dtype=tf_dt) for c in cases]
    got = run_xla(fn)
    eager = run_eager(fn)
    for g, e, c in zip(got, eager, cases):
        if dtype == np.float64:
            # iota * delta + start in float64 may be fused into one FMA: last-ulp differences
            assert_close(g, e, rtol=1e-15, atol=1e-15)
        else:
            assert_same(g, e)
        assert_close(g, np_range(*c, dtype), dtype=dtype)


def test_large_range_is_computed_not_embedded():
    f = tf.function(lambda x: tf.range(0, 1_000_000, 3, dtype=tf.int32) + x, jit_compile=True)
    one = tf.constant(1)
    got = f(one).numpy()
    np.testing.assert_array_equal(got, np.arange(1, 1_000_001, 3, dtype=np.int32))
    text = f.experimental_get_compiler_ir(one)(stage="stablehlo")
    assert "iota" in text and len(text) < 5000


def test_shape_and_size():
    x = data((3, 0, 4), np.float32)
    y = data((2, 5), BF16)

    def fn(x, y):
        return [tf.shape(x), tf.size(x), tf.shape(y, out_type=tf.int64),
                tf.size(y, out_type=tf.int64), tf.size(y, out_type=tf.float32),
                tf.rank(y), tf.shape(y[0, 1])]

    def ref(x, y):
        return [np.array([3, 0, 4], np.int32), np.int32(0), np.array([2, 5], np.int64),
                np.int64(10), np.float32(10), np.int32(2), np.zeros(0, np.int32)]
    check(fn, ref, x, y)


# --- sort and argsort ---------------------------------------------------------------------
def np_argsort(x, axis, descending):
    """Stable argsort by Python's sorted: NaN largest (first when descending)."""
    def along(v):
        v = v.astype(np.float64)    # exact for the values used here; -v must not wrap
        if descending:
            key = lambda i: (not np.isnan(v[i]), -v[i])  # noqa: E731
        else:
            key = lambda i: (bool(np.isnan(v[i])), v[i])  # noqa: E731
        return np.array(sorted(range(len(v)), key=key), np.int32)
    if x.size == 0:
        return np.zeros(x.shape, np.int32)
    return np.apply_along_axis(along, axis, x.astype(np.float64)).astype(np.int32)


def np_sort(x, axis, descending):
    asc = np.take_along_axis(x, np_argsort(x, axis, False).astype(np.intp), axis)
    return np.flip(asc, axis) if descending else asc


@pytest.mark.parametrize("dtype,shape,axis", [
    (np.float32, (4, 9), -1), (np.float32, (7, 3), 0), (BF16, (3, 8), 1),
    (np.float16, (2, 3, 6), -2), (np.float64, (11,), 0), (np.int8, (3, 10), -1),
    (np.uint8, (10, 2), 0), (np.int64, (2, 7), 1), (np.int32, (0, 5), -1),
    (np.float32, (3, 0), 0),
], ids=str)
def test_sort_and_argsort(dtype, shape, axis):
    x = special_floats(shape, dtype, seed=11) if np.dtype(dtype).kind == "f" or dtype is BF16 \
        else data(shape, dtype, seed=11, low=-2, high=2)   # narrow range: many ties
    if np.dtype(dtype).kind == "f" or dtype is BF16:
        x = np.round(x.astype(np.float32)).astype(dtype)     # ties among floats too

    def fn(t):
        return [tf.sort(t, axis=axis), tf.sort(t, axis=axis, direction="DESCENDING"),
                tf.argsort(t, axis=axis), tf.argsort(t, axis=axis, direction="DESCENDING"),
                tf.argsort(t, axis=axis, stable=True)]

    def ref(x):
        return [np_sort(x, axis, False), np_sort(x, axis, True), np_argsort(x, axis, False),
                np_argsort(x, axis, True), np_argsort(x, axis, False)]
    check(fn, ref, x)


def test_ops_compose_inside_one_function():
    # A small pipeline through several array ops, all in one XLA program.
    x = data((6, 4), np.float32, seed=12)

    def fn(t):
        order = tf.argsort(t[:, 0])
        rows = tf.gather(t, order)
        top = tf.reverse(rows, [0])[:3]
        padded = tf.pad(top, [[0, 1], [1, 0]], mode="SYMMETRIC")
        return tf.concat([tf.transpose(padded), tf.tile(padded[:1, :], (1, 1))[:, :4]], 0)

    def ref(x):
        rows = x[np.argsort(x[:, 0], kind="stable")]
        padded = np.pad(rows[::-1][:3], [[0, 1], [1, 0]], "symmetric")
        return np.concatenate([padded.T, padded[:1, :4]], 0)
    check(fn, ref, x)


# Every (dtype, op) pair above goes through the same rules; make sure the bit comparison
# itself can fail (a NaN payload or -0.0 differing must not pass as equal).
def test_bit_comparison_is_strict():
    a = np.array([0.0], np.float32)
    with pytest.raises(AssertionError):
        assert_same(a, -a)
