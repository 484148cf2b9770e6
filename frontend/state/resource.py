"""TF's `tf.saved_model.experimental.TrackableResource`: the base of an object that owns a
resource (a lookup table, ...), created once on first use by the subclass's
`_create_resource()`. Saving finds such objects among a model's trackables."""
from __future__ import annotations


class TrackableResource:
    def __init__(self, device=""):
        self._device = device
        self._resource_handle_value = None

    def _create_resource(self):
        """The resource; subclasses define it."""
        raise NotImplementedError(f"{type(self).__name__} must define _create_resource()")

    def _initialize(self):
        """Fill a new resource; a no-op unless the subclass defines it."""

    @property
    def resource_handle(self):
        """The resource, created and initialized on first use."""
        if self._resource_handle_value is None:
            self._resource_handle_value = self._create_resource()
            self._initialize()
        return self._resource_handle_value
