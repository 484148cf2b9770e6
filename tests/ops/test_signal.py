"""tf.signal: the FFT family's composites (shifts, framing, overlap-add, windows, STFT and its
inverse, DCTs, mel filterbanks, MFCCs) in every mode against NumPy/SciPy, with gradients of
the real-valued ones against central differences."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.fft
import scipy.signal

import flowjit as tf
from composite_helpers import check_composite, run_mode

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("axes", [None, 1, (0,)])
def test_fftshift(axes):
    x = RNG.standard_normal((3, 5))
    check_composite(lambda t: tf.signal.fftshift(t, axes=axes), [x],
                    np.fft.fftshift(x, axes=axes), grad=(0,))
    check_composite(lambda t: tf.signal.ifftshift(t, axes=axes), [x],
                    np.fft.ifftshift(x, axes=axes), grad=(0,))


@pytest.mark.parametrize("length,step,pad_end", [(3, 2, False), (3, 2, True), (4, 4, True),
                                                 (9, 1, False)])
def test_frame(length, step, pad_end):
    x = RNG.standard_normal((2, 7))
    n = x.shape[-1]
    frames = -(-n // step) if pad_end else max(0, 1 + (n - length) // step)
    padded = np.pad(x, [(0, 0), (0, max(0, (frames - 1) * step + length - n))],
                    constant_values=-1)
    want = np.stack([padded[:, f * step:f * step + length] for f in range(frames)], 1) \
        if frames else np.zeros((2, 0, length))
    check_composite(lambda t: tf.signal.frame(t, length, step, pad_end=pad_end, pad_value=-1),
                    [x], want, grad=(0,))


def test_frame_axis():
    x = RNG.standard_normal((6, 2))
    want = np.stack([x[0:4], x[2:6]], 0)
    check_composite(lambda t: tf.signal.frame(t, 4, 2, axis=0), [x], want, grad=(0,))


@pytest.mark.parametrize("step", [1, 2, 3])
def test_overlap_and_add(step):
    x = RNG.standard_normal((2, 4, 3))
    x[0, 1, 2] = np.nan   # stays at its own output sample
    out = np.zeros((2, 3 * step + 3))
    for f in range(4):
        out[:, f * step:f * step + 3] += x[:, f]
    check_composite(lambda t: tf.signal.overlap_and_add(t, step), [x], out)
    x[0, 1, 2] = 0.5
    out = np.zeros((2, 3 * step + 3))
    for f in range(4):
        out[:, f * step:f * step + 3] += x[:, f]
    check_composite(lambda t: tf.signal.overlap_and_add(t, step), [x], out, grad=(0,))


def tf_window(name, n, periodic):
    """TF's raised-cosine windows: periodic only for even lengths (odd ones are symmetric
    either way, TF 2.21's rule)."""
    if n == 1:
        return np.ones(1)
    return scipy.signal.get_window(name, n, fftbins=periodic and n % 2 == 0)


@pytest.mark.parametrize("n", [1, 4, 5])
def test_windows(n):
    for periodic in (True, False):
        check_composite(lambda: tf.signal.hann_window(n, periodic=periodic), [],
                        tf_window("hann", n, periodic).astype(np.float32))
        check_composite(lambda: tf.signal.hamming_window(n, periodic=periodic, dtype=tf.float64),
                        [], tf_window("hamming", n, periodic))
    check_composite(lambda: tf.signal.kaiser_window(n, beta=5.0), [],
                    np.kaiser(n, 5.0).astype(np.float32))
    arg = (np.arange(n) + 0.5) / n
    check_composite(lambda: tf.signal.vorbis_window(n), [],
                    np.sin(np.pi / 2 * np.sin(np.pi * arg) ** 2).astype(np.float32))


def test_stft_and_its_inverse():
    x = RNG.standard_normal((2, 32)).astype(np.float32)
    window = scipy.signal.get_window("hann", 8).astype(np.float32)
    frames = np.stack([x[:, f * 4:f * 4 + 8] * window for f in range(7)], 1)
    check_composite(lambda t: tf.signal.stft(t, 8, 4), [x], np.fft.rfft(frames, 8).astype(
        np.complex64), rtol=1e-5, atol=1e-5)
    inverse = tf.signal.inverse_stft_window_fn(4)
    back = lambda t: tf.signal.inverse_stft(tf.signal.stft(t, 8, 4), 8, 4, window_fn=inverse)
    # Perfect reconstruction away from the first and last frame's unmatched halves.
    for mode in ("eager", "graph", "xla"):
        got = run_mode(mode, back, x)
        assert got.shape == x.shape, mode
        np.testing.assert_allclose(got[:, 4:-4], x[:, 4:-4], rtol=1e-5, atol=1e-5,
                                   err_msg=mode)


@pytest.mark.parametrize("kind", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", [None, "ortho"])
def test_dct(kind, norm):
    if kind == 1 and norm:
        with pytest.raises(ValueError, match="Type-I"):
            tf.signal.dct(np.ones((2, 4)), type=1, norm="ortho")
        return
    x = RNG.standard_normal((2, 6))
    check_composite(lambda t: tf.signal.dct(t, type=kind, norm=norm), [x],
                    scipy.fft.dct(x, type=kind, norm=norm), grad=(0,), rtol=1e-10)
    check_composite(lambda t: tf.signal.dct(t, type=kind, n=4, norm=norm), [x],
                    scipy.fft.dct(x[:, :4], type=kind, norm=norm), rtol=1e-10)
    check_composite(lambda t: tf.signal.idct(t, type=kind, n=8, norm=norm), [x],
                    scipy.fft.idct(np.pad(x, [(0, 0), (0, 2)]), type=kind, norm=norm)
                    * (1 if norm else (2 * (8 - 1) if kind == 1 else 2 * 8)), rtol=1e-10)


def test_mel_matrix_and_mfccs():
    w = tf.signal.linear_to_mel_weight_matrix(4, 9, 8000.0, 100.0, 3000.0).numpy()
    assert w.shape == (9, 4) and w.dtype == np.float32
    assert (w[0] == 0).all() and (w >= 0).all() and (w <= 1).all()
    assert (w.argmax(0) == np.sort(w.argmax(0))).all()   # centers rise with the band
    with pytest.raises(ValueError, match="Nyquist"):
        tf.signal.linear_to_mel_weight_matrix(upper_edge_hertz=5000.0)
    x = RNG.standard_normal((3, 5))
    check_composite(tf.signal.mfccs_from_log_mel_spectrograms, [x],
                    scipy.fft.dct(x, type=2) / np.sqrt(10), grad=(0,), rtol=1e-10)


def test_fft_gradients_are_refused_by_name():
    """README: the tape does not differentiate complex tensors yet; the error says so."""
    x = tf.constant(np.ones(4, np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.math.real(tf.signal.rfft(x)))
    with pytest.raises(tf.errors.UnimplementedError, match="complex"):
        tape.gradient(y, x)


@pytest.mark.parametrize("transform,shape", [
    (lambda t: tf.math.real(tf.signal.fft(t)), (2, 3, 3)),
    (lambda t: tf.signal.irfft2d(t, fft_length=[1, 1]), (3, 3, 3, 1)),
])
def test_fft_feeding_a_column_major_lapack_call_compiles(transform, shape):
    """XLA's CPU FFT needs row-major buffers, and eigh's LAPACK call asks for column-major
    ones; without the lowering's layout pin the XLA run failed with an internal RET_CHECK
    (as plain jax.jit does)."""
    z = RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)

    def program(t):
        y = transform(t)
        return tf.linalg.eigvalsh(y + tf.linalg.matrix_transpose(y))

    want = run_mode("eager", program, z)
    got = run_mode("xla", program, z)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
@pytest.mark.parametrize("shape,fft_length", [((0,), [1]), ((2, 0), [4]), ((3, 0), [2, 2])])
def test_irfft_of_an_empty_input_is_the_zero_padded_transform(mode, shape, fft_length):
    """numpy's irfftn (and TF's kernel) read uninitialized memory for an empty axis; every
    mode gives the transform of the zero-padded input, as XLA does (README: Differences)."""
    irfft = tf.signal.irfft if len(fft_length) == 1 else tf.signal.irfft2d
    got = run_mode(mode, lambda t: irfft(t, fft_length=fft_length),
                   np.zeros(shape, np.complex64))
    want_shape = shape[:len(shape) - len(fft_length)] + tuple(fft_length)
    np.testing.assert_array_equal(got, np.zeros(want_shape, np.float32))
