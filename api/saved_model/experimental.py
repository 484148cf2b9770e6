"""TF's `tf.saved_model.experimental`: the base class of objects that own a resource."""
from flowjit.frontend.state.resource import TrackableResource  # noqa: F401
