"""`tf.TensorArray`: a list of same-typed tensors written and read by index.

Representation: a Python object holding one stacked buffer tensor `[size, *element_shape]`
plus the element spec (dtype, element shape, size, flags). Every operation is an ordinary op
on the buffer (`tensor_scatter_nd_update` writes, `gather` reads), so the three backends and
the GradientTape support TensorArrays with no op of their own: gradients flow through the
scatter/gather gradients, XLA sees static shapes when the size is known while tracing, and
the graph executor also runs buffers whose first dimension grows (`dynamic_size`). Through
`nest` a TensorArray is a composite of its buffer, so `while_loop`, AutoGraph loops and
`cond` carry it as that one tensor and rebuild it inside and after the loop.

Eagerly, as in TF, `write`/`unstack`/`scatter` update the array in place and return it, and
indices are checked against the size; while tracing each operation returns a new
TensorArray. The buffer is allocated on the first write (or from `element_shape`); a
TensorArray that enters a staged loop before anything is written gets its element shape from
a trace of the loop body (`adopt_element_shapes`).
"""
from __future__ import annotations

from ...ir import dtypes as D
from ...ir import errors
from ...ir.registry import TT
from ...ir.shapes import TensorShape, as_shape, format_shape
from . import control_flow
from ..eager import dispatch
from ..function import func_graph
from ..eager.shape_args import traced_value
from ..eager.tensor import Tensor
from ..export import tf_export
from ..function.type_spec import TypeSpec


def _ops():
    from ..ops import array, math
    return array, math


@tf_export("TensorArraySpec")
class TensorArraySpec(TypeSpec):
    """TF's `tf.TensorArraySpec(element_shape=None, dtype=tf.float32, dynamic_size=False,
    infer_shape=True)`: the type of a TensorArray."""

    __slots__ = ("_element_shape", "_dtype", "_dynamic_size", "_infer_shape")

    def __init__(self, element_shape=None, dtype=D.float32, dynamic_size=False,
                 infer_shape=True):
        self._element_shape = TensorShape(None) if element_shape is None else \
            as_shape(element_shape)
        self._dtype = D.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = bool(infer_shape)

    value_type = property(lambda self: TensorArray)

    @staticmethod
    def from_value(value):
        if not isinstance(value, TensorArray):
            raise TypeError(f"Expected value to be a TensorArray, but got: `{type(value)}`")
        return value._type_spec

    def is_compatible_with(self, other) -> bool:
        other = getattr(other, "_type_spec", other)
        return isinstance(other, TensorArraySpec) and self._dtype is other._dtype and \
            self._element_shape.is_compatible_with(other._element_shape) and \
            self._dynamic_size == other._dynamic_size

    def _fields(self) -> tuple:
        return (self._element_shape, self._dtype, self._dynamic_size, self._infer_shape)

    def __eq__(self, other):
        return type(other) is TensorArraySpec and self._fields() == other._fields()

    def __hash__(self):
        return hash(self._fields())

    def __repr__(self):
        return "TensorArraySpec({!r}, {!r}, {}, {})".format(*self._fields())


class TensorArray:
    """TF's `tf.TensorArray` (see the module doc for how it is represented)."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        self._dtype = D.as_dtype(dtype)
        self._dynamic = bool(dynamic_size)
        self._infer_shape = bool(infer_shape)
        self._clear_after_read = clear_after_read is None or bool(clear_after_read)
        self._element_shape = TensorShape(None) if element_shape is None else \
            as_shape(element_shape)
        if size is None:
            raise ValueError("TensorArray: size must be given")
        static = control_flow._static_int(size)
        self._size = static if static is not None else \
            dispatch.convert_to_tensor(size, dtype=D.int32)
        self._buffer = None
        self._cleared = set()     # eager: indices read with clear_after_read
        if self._element_shape.is_fully_defined() and isinstance(self._size, int):
            self._buffer = self._zeros(self._size)

    # --- nest composite: the buffer is the one component --------------------------------
    def _nest_components(self):
        return [] if self._buffer is None else [self._buffer]

    def _nest_rebuild(self, components):
        return self._with(components[0] if components else None)

    def _with(self, buffer, size=None):
        new = object.__new__(TensorArray)
        new.__dict__.update(self.__dict__)
        new._cleared = set(self._cleared)
        new._buffer = buffer
        if buffer is not None and self._element_shape.rank is None:
            new._element_shape = TensorShape.from_tuple(tuple(buffer.shape.as_tuple())[1:])
        if size is not None:
            new._size = size
        return new

    def _updated(self, buffer, size=None):
        """Eagerly TF's TensorArray changes in place; while tracing a new one is returned."""
        if func_graph.current() is not None:
            return self._with(buffer, size)
        self._buffer = buffer
        if size is not None:
            self._size = size
        if self._element_shape.rank is None:
            self._element_shape = TensorShape.from_tuple(tuple(buffer.shape.as_tuple())[1:])
        return self

    # --- properties ------------------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def element_shape(self) -> TensorShape:
        return self._element_shape

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic

    @property
    def _type_spec(self) -> TensorArraySpec:
        return TensorArraySpec(self._element_shape, self._dtype, self._dynamic,
                               self._infer_shape)

    def __repr__(self):
        return f"<flowjit.TensorArray dtype={self._dtype.name} element_shape=" \
               f"{self._element_shape} size={self._size if isinstance(self._size, int) else '?'}>"

    # --- helpers ---------------------------------------------------------------------------
    def _zeros(self, rows):
        """A zero buffer of `rows` elements. Its first dimension is static unless `rows` is a
        tensor, or the array grows inside a traced function (loops then carry it as `None`)."""
        array, _ = _ops()
        elem = tuple(self._element_shape.as_tuple())
        if isinstance(rows, int) and not (self._dynamic and func_graph.current() is not None):
            return array.zeros((rows,) + elem, self._dtype)
        return self._grown(array.zeros((0,) + elem, self._dtype), rows)

    def _grown(self, buffer, rows):
        """`buffer` with zero rows appended until it has at least `rows` (int32 scalar)."""
        array, math = _ops()
        elem = tuple(self._element_shape.as_tuple())
        if func_graph.current() is None:
            missing = int(rows) - buffer.shape[0]
            return buffer if missing <= 0 else array.concat(
                [buffer, array.zeros((missing,) + elem, self._dtype)], 0)
        row = array.zeros((1,) + elem, self._dtype)
        return control_flow.while_flat(
            lambda b: math.less(array.shape(b)[0], rows),
            lambda b: [array.concat([b, row], 0)], [buffer],
            tts=[TT(self._dtype, (None,) + elem)], record=True)[0]

    def _rows(self):
        """The current size: a Python int when known while tracing, else an int32 tensor."""
        array, _ = _ops()
        if isinstance(self._size, int) and not (self._dynamic and self._buffer is not None
                                                and func_graph.current() is not None):
            return self._size
        if self._buffer is None:
            return self._size
        n = self._buffer.shape[0]
        return n if n is not None else array.shape(self._buffer)[0]

    def _index(self, index, what):
        """(index tensor, static index or None); negative static indices raise as TF."""
        static = control_flow._static_int(index)
        if static is not None and static < 0:
            verb = {"write": "Writing to", "read": "Reading from"}[what]
            raise errors.OutOfRangeError(None, f"TensorArray{what.title()}",
                                         f"{verb} negative indices (index {static}) is not "
                                         f"allowed.")
        t = dispatch.convert_to_tensor(index, dtype=D.int32) if not isinstance(index, Tensor) \
            else index
        if t.dtype is not D.int32:
            raise TypeError(f"TensorArray.{what}: index must be int32, got {t.dtype.name}")
        return t, static

    def _check_write(self, static):
        """A write past a fixed size, when the index is known: TF's eager OutOfRangeError,
        or (traced) the InvalidArgumentError TF's graph raises when it runs."""
        if self._dynamic or static is None or not isinstance(self._size, int) or \
                static < self._size:
            return
        if func_graph.current() is None:
            raise errors.OutOfRangeError(None, "TensorArrayWrite",
                                         f"Tried to write to index {static} but array is not "
                                         f"resizeable and size is: {self._size}")
        raise errors.InvalidArgumentError(None, "TensorArrayWrite",
                                          f"Trying to modify element {static} in a list with "
                                          f"{self._size} elements.")

    def _value(self, value, what):
        if isinstance(value, Tensor) or hasattr(value, "_as_tensor"):
            t = value._as_tensor() if hasattr(value, "_as_tensor") else value
            if t.dtype is not self._dtype:
                raise errors.InvalidArgumentError(
                    None, f"TensorArray{what}", f"TensorArray dtype is {self._dtype.name} but "
                    f"Op is trying to write dtype {t.dtype.name}")
            return t
        return dispatch.convert_to_tensor(value, dtype=self._dtype)

    def _merge_shape(self, shape: TensorShape):
        """Check an element's shape against the element shape and learn it (infer_shape)."""
        if not self._element_shape.is_compatible_with(shape):
            if func_graph.current() is None:
                raise ValueError(f"Incompatible shape for value ({shape}), expected "
                                 f"({self._element_shape})")
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected "
                             f"{self._element_shape}")
        if self._infer_shape or self._element_shape.rank is None:
            self._element_shape = self._element_shape.merge_with(shape)

    def _allocated(self):
        """The buffer; allocated from the element shape when nothing was written yet."""
        if self._buffer is not None:
            return self._buffer
        if not self._element_shape.is_fully_defined():
            raise ValueError(f"TensorArray: nothing was written and the element shape "
                             f"{self._element_shape} is not fully defined, so the array has "
                             f"no value yet; write to it first or pass element_shape=")
        return self._zeros(self._size)

    # --- writing ---------------------------------------------------------------------------
    def write(self, index, value, name=None):
        value = self._value(value, "Write")
        idx, static = self._index(index, "write")
        self._check_write(static)
        # Traced, a write returns a new array and leaves this one as it was.
        this = self._with(self._buffer) if func_graph.current() is not None else self
        this._merge_shape(value.shape)
        return this._store(this._allocated(), idx, static, value)

    def _store(self, buffer, idx, static, value):
        array, _ = _ops()
        size = None
        if self._dynamic:
            buffer = self._grown(buffer, idx + 1)
            if func_graph.current() is None:
                size = buffer.shape[0]
        self._cleared.discard(static)
        row = array.expand_dims(value, 0)
        new = array.tensor_scatter_nd_update(buffer, array.reshape(idx, (1, 1)), row)
        return self._updated(new, size)

    def unstack(self, value, name=None):
        """Rows of `value` become the elements (the size becomes value's first dimension)."""
        value = self._value(value, "Unstack")
        if value.shape.rank == 0:
            raise ValueError("Argument `axis` = 0 not in range [0, 0)")
        self._merge_shape(TensorShape.from_tuple(tuple(value.shape.as_tuple())[1:]))
        array, _ = _ops()
        n = value.shape[0]
        self._cleared = set()
        return self._updated(value, n if n is not None else array.shape(value)[0])

    def scatter(self, indices, value, name=None):
        """Element `indices[i]` becomes `value[i]`."""
        array, _ = _ops()
        value = self._value(value, "Scatter")
        idx = dispatch.convert_to_tensor(indices, dtype=D.int32)
        elem = TensorShape.from_tuple(tuple(value.shape.as_tuple())[1:])
        this = self._with(self._buffer) if func_graph.current() is not None else self
        this._merge_shape(elem)
        buffer = this._allocated()
        size = None
        if func_graph.current() is None:
            for i in idx.numpy().reshape(-1).tolist():
                this._check_write(i)
                this._cleared.discard(i)
        if self._dynamic:
            _, math = _ops()
            buffer = this._grown(buffer, math.reduce_max(idx) + 1)
            if func_graph.current() is None:
                size = buffer.shape[0]
        new = array.tensor_scatter_nd_update(buffer, array.reshape(idx, (-1, 1)), value)
        return this._updated(new, size)

    def split(self, value, lengths, name=None):
        """Element i becomes the next `lengths[i]` rows of `value`. The buffer holds elements
        of one shape, so the lengths must be equal: TF's rule under XLA (and its error), which
        flowjit applies in every mode (README, "Differences from TF")."""
        array, _ = _ops()
        value = self._value(value, "Split")
        sizes = _known_lengths(lengths)
        if value.shape.rank == 0:   # TF's shape function while tracing, its kernel eagerly
            if func_graph.current() is not None:
                raise ValueError("Shape must be at least rank 1 but is rank 0 for "
                                 "'{{node TensorArraySplit}}'")
            raise errors.InvalidArgumentError(None, "TensorArraySplit",
                                              "Expected value to be at least a vector, but "
                                              "received shape: []")
        rows, rest = value.shape[0], tuple(value.shape.as_tuple())[1:]
        if rows is not None and sum(sizes) != rows:
            raise errors.InvalidArgumentError(
                None, "TensorArraySplit", f"Expected sum of lengths to be equal to "
                f"values.shape[0], but sum of lengths is {sum(sizes)} and value's shape is: "
                f"{format_shape(value.shape.as_tuple())}")
        if len(set(sizes)) > 1:
            raise errors.UnimplementedError(None, "TensorArraySplit",
                                            "All lengths have to be the same")
        each = sizes[0] if sizes else 0
        this = self._with(self._buffer) if func_graph.current() is not None else self
        this._merge_shape(TensorShape.from_tuple((each,) + rest))
        this._cleared = set()
        if None in rest:
            tail = array.shape(value)[1:]
            shape = array.concat([dispatch.convert_to_tensor([len(sizes), each]), tail], 0)
        else:
            shape = (len(sizes), each) + rest
        return this._updated(array.reshape(value, shape), len(sizes))

    # --- reading ---------------------------------------------------------------------------
    def read(self, index, name=None):
        array, _ = _ops()
        idx, static = self._index(index, "read")
        if func_graph.current() is None:
            if static >= self._rows():
                raise errors.OutOfRangeError(None, "TensorArrayRead",
                                             f"Tried to read from index {static} but array "
                                             f"size is: {self._rows()}")
            if self._clear_after_read:
                if static in self._cleared:
                    raise errors.InvalidArgumentError(
                        None, "TensorArrayRead",
                        f"Could not read index {static} twice because it was cleared after "
                        f"a previous read (perhaps try setting clear_after_read = false?)")
                self._cleared.add(static)
        elif static is not None and isinstance(self._rows(), int) and static >= self._rows():
            raise errors.InvalidArgumentError(None, "TensorArrayRead",
                                              f"Trying to access element {static} in a list "
                                              f"with {self._rows()} elements.")
        return _rows_of(self._allocated(), idx)

    def gather(self, indices, name=None):
        array, _ = _ops()
        idx = dispatch.convert_to_tensor(indices, dtype=D.int32)
        if func_graph.current() is None:
            for i in idx.numpy().reshape(-1).tolist():
                if not 0 <= i < self._rows():
                    raise errors.OutOfRangeError(None, "TensorArrayGather",
                                                 f"Tried to read from index {i} but array "
                                                 f"size is: {self._rows()}")
        return _rows_of(self._allocated(), idx)

    def stack(self, name=None):
        """All elements stacked along a new first dimension."""
        if self._buffer is None and self._size == 0 and self._element_shape.rank is None and \
                isinstance(self._size, int):
            array, _ = _ops()
            return array.zeros((0,), self._dtype)    # TF: an empty float vector
        return self._allocated()

    def concat(self, name=None):
        """All elements joined along their first dimension."""
        array, _ = _ops()
        buffer = self._allocated()
        if self._element_shape.rank == 0:
            raise errors.InvalidArgumentError(None, "TensorArrayConcat",
                                              "Concat saw a scalar shape at index 0 but "
                                              "requires at least vectors.")
        elem = tuple(self._element_shape.as_tuple())
        return array.reshape(buffer, (-1,) + elem[1:])

    def size(self, name=None):
        n = self._rows()
        return dispatch.convert_to_tensor(n, dtype=D.int32) if isinstance(n, int) else n

    def close(self, name=None):
        """TF's close: nothing to release (the buffer is an ordinary tensor)."""
        return None

    def identity(self):
        return self._with(self._buffer)

    def mark_used(self):
        return None


def _known_lengths(lengths) -> list:
    """`split`'s lengths as Python ints; they set the array's size, so they must be known
    while tracing."""
    if isinstance(lengths, Tensor) or hasattr(lengths, "_as_tensor"):
        known = traced_value(dispatch.convert_to_tensor(lengths))
        if known is None or not isinstance(known, tuple) or None in known:
            raise ValueError(f"TensorArray.split: the lengths must be known while tracing "
                             f"(they set the array's size); got {lengths!r}")
        return list(known)
    return [int(n) for n in lengths]


def _arrays(structure) -> list:
    out = []
    if isinstance(structure, TensorArray):
        out.append(structure)
    elif isinstance(structure, dict):
        for v in structure.values():
            out.extend(_arrays(v))
    elif isinstance(structure, (list, tuple)):
        for v in structure:
            out.extend(_arrays(v))
    return out


def has_unallocated(structure) -> bool:
    """Whether a TensorArray in `structure` has no buffer yet (its element shape unknown)."""
    return any(ta._buffer is None for ta in _arrays(structure))


def adopt_element_shapes(before, after):
    """`before` with each unallocated TensorArray given the element shape that the
    TensorArray at the same place in `after` (a trace of the loop body) was written with,
    and its zero buffer allocated, so that it can enter the loop as a tensor."""
    if isinstance(before, TensorArray):
        if before._buffer is not None or not isinstance(after, TensorArray):
            return before
        shape = before._element_shape.merge_with(after._element_shape)
        if not shape.is_fully_defined():
            raise ValueError(f"TensorArray: the loop writes elements of shape {shape}; a "
                             f"TensorArray carried by a loop needs a fully defined element "
                             f"shape (pass element_shape=)")
        new = before._with(None)
        new._element_shape = shape
        new._buffer = new._zeros(before._size)
        return new
    if isinstance(before, dict) and isinstance(after, dict):
        return type(before)((k, adopt_element_shapes(v, after.get(k))) for k, v in
                            before.items())
    if isinstance(before, (list, tuple)) and isinstance(after, (list, tuple)) and \
            len(before) == len(after):
        items = [adopt_element_shapes(b, a) for b, a in zip(before, after)]
        return type(before)(*items) if hasattr(before, "_fields") else type(before)(items)
    return before


def allocate_alike(a, b, graph_a, graph_b):
    """Branch results `a` and `b` (built in `graph_a`, `graph_b`) where a TensorArray written
    on one path only (a write after a tensor-dependent `continue`) also gets a zero buffer on
    the other, with the written element shape, so both paths carry the same tensor."""
    if isinstance(a, TensorArray) and isinstance(b, TensorArray):
        if (a._buffer is None) == (b._buffer is None):
            return a, b
        empty, full, graph = (a, b, graph_a) if a._buffer is None else (b, a, graph_b)
        shape = empty._element_shape.merge_with(full._element_shape)
        if not shape.is_fully_defined():
            return a, b
        filled = empty._with(None)
        filled._element_shape = shape
        with func_graph.as_default(graph):
            filled._buffer = filled._zeros(empty._size)
        return (filled, b) if empty is a else (a, filled)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b) \
            and type(a) is type(b):
        pairs = [allocate_alike(x, y, graph_a, graph_b) for x, y in zip(a, b)]
        rebuild = (lambda items: type(a)(*items)) if hasattr(a, "_fields") else type(a)
        return rebuild([p[0] for p in pairs]), rebuild([p[1] for p in pairs])
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        pairs = {k: allocate_alike(a[k], b[k], graph_a, graph_b) for k in a}
        return (type(a)((k, p[0]) for k, p in pairs.items()),
                type(b)((k, p[1]) for k, p in pairs.items()))
    return a, b


class _ElementShapes:
    """TensorArrays carried by a while_loop take their element shapes from a trace of the
    body (control_flow.LOOP_VAR_SHAPERS)."""
    needs_trace = staticmethod(has_unallocated)
    adopt = staticmethod(adopt_element_shapes)


control_flow.LOOP_VAR_SHAPERS.append(_ElementShapes)


def _rows_of(buffer, idx):
    """Rows `idx` (a scalar or a vector) of the buffer. gather_nd, not gather: TF's gradient
    of a TensorArray read is dense, not IndexedSlices."""
    array, _ = _ops()
    return array.gather_nd(buffer, array.expand_dims(idx, -1))
