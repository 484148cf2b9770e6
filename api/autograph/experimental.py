"""TF's `tf.autograph.experimental`."""
from flowjit.frontend.autograph import Feature, do_not_convert, set_loop_options
