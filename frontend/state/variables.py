"""`Variable`: mutable state that ops read as a Tensor.

A Variable owns its current value (an eager Tensor). Every assign validates dtype and shape
*before* touching the value, so a bad assign raises and leaves the variable as it was.
Tracing (graph mode) treats a Variable as a resource captured by reference.
"""
from __future__ import annotations

import itertools

from ...ir import dtypes as D
from ...ir.errors import InvalidArgumentError
from ...ir.shapes import TensorShape, as_shape
from ...runtime.resources import ResourceHandle
from ..eager import dispatch
from ..function.context import context
from ..export import runs, tf_export
from ..function.type_spec import TypeSpec
from . import variable_creator, variable_policy
from ..eager.tensor import Reference, Tensor
from ..composite.indexed_slices import IndexedSlices

_CTX = context()
_uid = itertools.count()


@tf_export("Variable")
class Variable(metaclass=variable_creator.CreatorScopedClass):
    """TF's `tf.Variable(initial_value, trainable=True, name=None, dtype=None, shape=None)`."""

    _creator_root = True   # calls of this class, not of subclasses, run the creator scopes

    __array_priority__ = 100  # `ndarray @ Variable` defers to Variable.__rmatmul__, as in TF

    def __init__(self, initial_value=None, trainable=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None,
                 import_scope=None, constraint=None, synchronization=None, aggregation=None,
                 shape=None, experimental_enable_variable_lifting=True):
        if initial_value is None:
            raise ValueError("Variable: initial_value must be specified.")
        hook = _CTX.create_hook
        value = hook(initial_value, dtype) if hook is not None else \
            dispatch.convert_to_tensor(initial_value() if callable(initial_value)
                                       else initial_value, dtype=dtype)
        self._uid = next(_uid)
        self._dtype = value.dtype
        self._shape = as_shape(shape) if shape is not None else value.shape
        if not self._shape.is_compatible_with(value.shape):
            raise ValueError(f"Variable {name!r}: initial value of shape {value.shape} is not "
                             f"compatible with shape {self._shape}")
        self._synchronization, self._aggregation, self._trainable = variable_policy.checked(
            synchronization, aggregation, trainable, name)
        self._name = f"{''.join(s + '/' for s in _CTX.name_scopes)}{name or 'Variable'}:0"
        self._constraint = constraint
        self._handle = ResourceHandle(value._value, self._dtype, self._shape, self._name)

    @property
    def _value(self) -> Tensor:
        """The current value as an eager Tensor (no graph involved)."""
        h = self._handle
        with h.lock:   # not while an XLA call in another thread donates the buffer
            return Tensor._wrap(h.value, self._dtype)

    # --- metadata -------------------------------------------------------------
    @property
    def _unique_id(self) -> int:
        """TF's key of a variable's identity (Keras's optimizers key their slots by it)."""
        return self._uid

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> D.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def _type_spec(self) -> "VariableSpec":
        return VariableSpec(self._shape, self._dtype, self._trainable)

    @property
    def synchronization(self) -> variable_policy.VariableSynchronization:
        return self._synchronization

    @property
    def aggregation(self) -> variable_policy.VariableAggregationV2:
        return self._aggregation

    @property
    def constraint(self):
        return self._constraint

    @property
    def ndim(self) -> int:
        return self._shape.rank

    @property
    def device(self) -> str:
        return self._value.device

    # --- reading ----------------------------------------------------------------
    def _as_tensor(self):
        """The current value; while tracing, the tracer substitutes a resource read."""
        ctx = _CTX
        hook = ctx.read_hook
        t = hook(self) if hook is not None else self._value
        hook = ctx.watch_hook
        if hook is not None:  # a GradientTape records: the read may be watched
            hook(self, t)
        return t

    @runs("read_variable")
    def read_value(self):
        return self._as_tensor()

    def value(self):
        return self._as_tensor()

    def numpy(self):
        return self._value.numpy()

    def __array__(self, dtype=None, copy=None):
        return self._value.__array__(dtype, copy)

    def __bool__(self):
        return bool(self._as_tensor())

    def __int__(self):
        return int(self._value)

    def __float__(self):
        return float(self._value)

    def __index__(self):
        return self._value.__index__()

    def __len__(self):
        return len(self._value)

    def __iter__(self):
        return iter(self._as_tensor())

    def __hash__(self):
        raise TypeError("Variable is unhashable. Instead, use variable.ref() as the key.")

    def ref(self):
        return Reference(self)

    def experimental_ref(self):
        return self.ref()

    # --- writing ---------------------------------------------------------------
    def _checked(self, value, opname: str) -> Tensor:
        """The value converted to this variable's dtype and checked against its shape. As in
        TF, a dtype mismatch is a ValueError (TypeError for unconvertible Python values);
        a shape mismatch is a ValueError for `assign`, InvalidArgumentError for the updates."""
        try:
            t = dispatch.convert_to_tensor(value, dtype=self._dtype)
        except (TypeError, ValueError) as e:
            got = getattr(value, "dtype", type(value).__name__)
            got = getattr(got, "name", got)
            raise type(e)(
                f"{opname} on variable '{self._name}' (dtype {self._dtype.name}, shape "
                f"{self._shape}): value has dtype {got}, expected {self._dtype.name} "
                f"({e})") from None
        if not self._shape.is_compatible_with(t.shape):
            msg = (f"{opname} on variable '{self._name}': cannot assign a value of shape "
                   f"{t.shape} to a variable of shape {self._shape}")
            if opname == "assign":
                raise ValueError(msg)
            raise InvalidArgumentError(None, opname, msg)
        return t

    @runs("assign_variable")
    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Replace the value. A mismatched dtype or shape raises and changes nothing."""
        hook = _CTX.assign_hook
        if hook is not None:
            return hook(self, "assign", value, read_value)
        new = self._checked(value, "assign")
        with self._handle.lock:
            self._handle.value = new._value
        return self if read_value else None

    @runs("assign_add_variable")
    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        hook = _CTX.assign_hook
        if hook is not None:
            return hook(self, "assign_add", delta, read_value)
        d = self._checked(delta, "assign_add")
        h = self._handle
        with h.lock:
            h.value = dispatch.apply("add", (Tensor._wrap(h.value, self._dtype), d))._value
        return self if read_value else None

    @runs("assign_sub_variable")
    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        hook = _CTX.assign_hook
        if hook is not None:
            return hook(self, "assign_sub", delta, read_value)
        d = self._checked(delta, "assign_sub")
        h = self._handle
        with h.lock:
            h.value = dispatch.apply("sub", (Tensor._wrap(h.value, self._dtype), d))._value
        return self if read_value else None

    # --- sparse updates (TF's scatter_* methods take IndexedSlices: Keras's optimizers use
    # them for gradients of gathers) ---------------------------------------------------------
    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        """Add the rows of an IndexedSlices (repeated rows accumulate)."""
        return self.assign_add(_dense_rows(sparse_delta, "scatter_add"))

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        """Subtract the rows of an IndexedSlices (repeated rows accumulate)."""
        return self.assign_sub(_dense_rows(sparse_delta, "scatter_sub"))

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        """Overwrite the rows an IndexedSlices names with its values."""
        d = _slices(sparse_delta, "scatter_update")
        rows = dispatch.apply("expand_dims", (d.indices,), {"axis": -1})
        return self.assign(dispatch.apply("tensor_scatter_nd_update",
                                          (self._as_tensor(), rows, d.values)))

    def sparse_read(self, indices, name=None):
        """The rows `indices` of the value (TF's gather from a variable)."""
        return dispatch.apply("gather", (self._as_tensor(), dispatch.convert_to_tensor(indices)),
                              {"axis": 0, "batch_dims": 0})

    def __repr__(self):
        return (f"<tf.Variable '{self._name}' shape={self._value.shape!s} "
                f"dtype={self._dtype.name}, numpy={_np_repr(self._value)}>")

    def __str__(self):
        return repr(self)

    def __deepcopy__(self, memo):
        return Variable(self._value, trainable=self._trainable, name=self._name[:-2],
                        synchronization=self._synchronization, aggregation=self._aggregation)


class VariableSpec(TypeSpec):
    """TF's `VariableSpec`: the spec `tf.type_spec_from_value` gives for a variable."""

    __slots__ = ("shape", "dtype", "trainable", "alias_id")
    value_type = property(lambda self: Variable)

    def __init__(self, shape, dtype=D.float32, trainable=True, alias_id=None):
        self.shape, self.dtype = as_shape(shape), D.as_dtype(dtype)
        self.trainable, self.alias_id = trainable, alias_id

    def _fields(self) -> tuple:
        return (self.shape, self.dtype, self.trainable, self.alias_id)

    def __eq__(self, other):
        return type(other) is VariableSpec and self._fields() == other._fields()

    def __hash__(self):
        return hash(self._fields())

    def __repr__(self):
        return (f"VariableSpec(shape={self.shape}, dtype={self.dtype!r}, "
                f"trainable={self.trainable}, alias_id={self.alias_id})")


def _np_repr(t: Tensor) -> str:
    r = repr(t)
    return r[r.index("numpy=") + 6:-1]




def _slices(delta, opname):
    if not isinstance(delta, IndexedSlices):
        raise TypeError(f"{opname}: sparse_delta must be a tf.IndexedSlices, got "
                        f"{type(delta).__name__}")
    return delta


def _dense_rows(delta, opname):
    return _slices(delta, opname)._as_tensor()
