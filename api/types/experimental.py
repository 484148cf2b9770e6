"""TF's `tf.types.experimental`."""
from flowjit.frontend.function_type import FunctionType
from flowjit.frontend.trace_type import TraceType
