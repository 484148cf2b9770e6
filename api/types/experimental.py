"""TF's `tf.types.experimental`."""
from flowjit.frontend.function.function_type import FunctionType
from flowjit.frontend.function.trace_type import TraceType
