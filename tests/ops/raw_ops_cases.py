"""The inputs of tf.raw_ops.ImageProjectiveTransformV3 that tools/record_tf_raw_ops.py runs
through TF 2.21 and tests/ops/test_raw_ops.py through flowjit: each transform (rotation,
zoom, a shift past the border, a projective one, a flip, half-pixel shifts, k = 0 on a
column) with each interpolation and fill mode, to an output shape unlike the input's."""
import numpy as np

IMAGES = np.random.default_rng(0).integers(0, 100, size=(2, 5, 6, 2)).astype("float32")
OUTPUT_SHAPE = [4, 7]
FILL_VALUE = -3.0
TRANSFORMS = {"rot": [0.8, -0.6, 2.0, 0.6, 0.8, -1.0, 0.0, 0.0],
              "zoom": [1.7, 0.0, -2.5, 0.0, 0.4, 1.5, 0.0, 0.0],
              "shift": [1.0, 0.0, 7.3, 0.0, 1.0, -6.5, 0.0, 0.0],
              "proj": [1.0, 0.2, 0.5, 0.1, 0.9, 0.3, 0.05, -0.04],
              "flip": [-1.0, 0.0, 5.0, 0.0, 1.0, 0.0, 0.0, 0.0],
              "half": [1.0, 0.0, 0.5, 0.0, 1.0, -0.5, 0.0, 0.0],
              "kzero": [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, -0.5, 0.0]}
CASES = [(name, interpolation, mode) for name in TRANSFORMS
         for interpolation in ("NEAREST", "BILINEAR")
         for mode in ("REFLECT", "WRAP", "CONSTANT", "NEAREST")]


def transform(tf, name, interpolation, mode, images=None):
    return tf.raw_ops.ImageProjectiveTransformV3(
        images=tf.constant(IMAGES) if images is None else images,
        transforms=tf.constant([TRANSFORMS[name]], tf.float32),
        output_shape=tf.constant(OUTPUT_SHAPE), fill_value=tf.constant(FILL_VALUE),
        interpolation=interpolation, fill_mode=mode)
