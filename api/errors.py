"""TF's `tf.errors`: the exception classes every layer raises (defined in ir/errors.py) and
their status codes."""
from flowjit.ir.errors import (
    ABORTED, ALREADY_EXISTS, CANCELLED, DATA_LOSS, DEADLINE_EXCEEDED, FAILED_PRECONDITION,
    INTERNAL, INVALID_ARGUMENT, NOT_FOUND, OK, OUT_OF_RANGE, PERMISSION_DENIED,
    RESOURCE_EXHAUSTED, UNAUTHENTICATED, UNAVAILABLE, UNIMPLEMENTED, UNKNOWN, AbortedError,
    AlreadyExistsError, CancelledError, DataLossError, DeadlineExceededError,
    FailedPreconditionError, InternalError, InvalidArgumentError, NotFoundError, OpError,
    OperatorNotAllowedInGraphError, OutOfRangeError, PermissionDeniedError,
    ResourceExhaustedError, UnauthenticatedError, UnavailableError, UnimplementedError,
    UnknownError)
from flowjit.frontend.function.retracing import RetracingError  # flowjit's strict retracing
