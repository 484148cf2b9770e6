"""The TF-named op API, one module per op family (`ir/families.py`), each public function
marked with its TF names where it is defined (`frontend/export.py`: `tf_export`)."""
from ...ir.families import load_families

# Composites of other families' ops, with no ops of their own: image, image_boxes,
# image_geometry, image_color, image_quality, image_random (tf.image), matrix,
# linear_operator, linear_operator_structured (tf.linalg, tf.linalg.LinearOperator*),
# nn_composites, nn_conv, nn_ctc, nn_windows (tf.nn), random_composites (tf.random's
# samplers), signal_mdct, signal_nd (tf.signal), tridiagonal_eigen
# (tf.linalg.eigh_tridiagonal), array_composites, math_composites (tf and tf.math functions
# TF composes), initializers, debug_settings (tf.debugging's switches), program
# (tf.executing_eagerly, tf.group, ...), nn_sampling (the candidate samplers), space_batch
# (space_to_batch_nd and its inverse), partition (dynamic_partition, dynamic_stitch), host
# (tf.timestamp, tf.check_pinned), conv_raw (tf.conv, conv2d_backprop_*_v2,
# extract_volume_patches), edit_distance, ragged_rows (tf.ragged_fill_empty_rows),
# linear_operator_circulant (tf.linalg.LinearOperatorCirculant*), random_truncated
# (tf.random.stateless_parameterized_truncated_normal); axes: the axis-attribute helper the
# families share; unicode_script_table: the ICU script runs. Also image_glimpse
# (tf.image.extract_glimpse), nn_fractional (tf.nn's fractional pools), image_crop_sampling
# (tf.image.sample_distorted_bounding_box), image_proposals
# (tf.image.generate_bounding_box_proposals).
COMPOSITES = ("image", "image_boxes", "image_geometry", "image_color", "image_quality",
              "image_random", "matrix", "linear_operator", "linear_operator_structured",
              "nn_composites", "nn_conv", "nn_ctc", "nn_windows", "random_composites",
              "signal_mdct", "signal_nd", "tridiagonal_eigen", "program", "array_composites",
              "math_composites", "initializers", "debug_settings", "nn_sampling",
              "space_batch", "partition", "host", "conv_raw", "edit_distance",
              "image_glimpse", "nn_fractional", "image_crop_sampling", "image_proposals",
              "ragged_rows", "linear_operator_circulant", "random_truncated", "raw_ops", "lookup")
FAMILIES = load_families(__name__, __path__,
                         not_families=COMPOSITES + ("axes", "unicode_script_table"))
from . import (image, image_boxes, image_color, image_geometry,  # noqa: E402,F401
               image_quality, image_random, linear_operator,
               linear_operator_structured, matrix, nn_composites, nn_conv,
               nn_ctc, nn_windows, program, random_composites, signal_mdct, signal_nd,
               tridiagonal_eigen)
from . import (array_composites, debug_settings, initializers,  # noqa: E402,F401
               conv_raw, edit_distance, host, math_composites, nn_sampling, partition,
               space_batch)
from . import (image_crop_sampling, image_glimpse, image_proposals,  # noqa: E402,F401
               nn_fractional)
from . import (linear_operator_circulant, lookup, ragged_rows,  # noqa: E402,F401
               random_truncated, raw_ops)
