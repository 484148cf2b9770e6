"""TF's `tf.profiler.experimental`: start/stop, the Profile and Trace contexts."""
import flowjit.frontend.profiler  # noqa: F401  (its definitions carry the export marks)
from flowjit.frontend.export import install as _install
_install(globals(), "profiler.experimental")
