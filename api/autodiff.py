"""TF's `tf.autodiff`."""
from flowjit.frontend.gradients.tape import GradientTape
