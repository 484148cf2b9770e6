"""Inputs and the sign-free loss of the SVD/eigh recordings (tools/record_tf_decompositions.py
records TF's answers, tests/ops/test_decompositions.py checks flowjit's); importable with
either framework, which is passed in as `tf`.

Singular and eigen vectors are unique only up to each vector's sign, which differs between
TF's Eigen kernels and LAPACK: |v|, and the gradient of a loss of |v|, do not depend on it.
"""
from __future__ import annotations

import numpy as np

INPUTS = {
    "svd_tall": ("svd", [[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]], {}),
    "svd_wide_batch": ("svd", [[[1.0, 2.0, 3.0], [0.0, -1.0, 2.0]],
                               [[3.0, 0.0, 1.0], [1.0, 1.0, -2.0]]], {}),
    "svd_square": ("svd", [[4.0, 1.0, 2.0], [1.0, -3.0, 0.5], [2.0, 0.5, 5.0]], {}),
    "svd_full": ("svd", [[1.0, 2.0, 0.0], [3.0, -4.0, 1.0]], {"full_matrices": True}),
    "eigh": ("eigh", [[2.0, 7.0, -1.0], [1.0, 3.0, 9.0], [0.5, -2.0, 4.0]], {}),
    "eigh_batch": ("eigh", [[[2.0, 0.0], [1.0, 3.0]], [[1.0, 5.0], [5.0, -1.0]]], {}),
}


def weights(n, offset):
    return ((np.arange(n) + offset) % 7 + 1) / 4.0


def sign_free_loss(tf, kind, outputs):
    values, vectors = outputs[0], outputs[1:]
    loss = tf.reduce_sum(values * weights(int(np.prod(values.shape)), 0).reshape(values.shape))
    for k, v in enumerate(vectors, 1):
        w = weights(int(np.prod(v.shape)), k).reshape(v.shape)
        loss += tf.reduce_sum(tf.abs(v) * w)
    return loss
