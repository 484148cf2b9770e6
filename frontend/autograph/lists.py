"""Python lists appended to inside staged loops, staged as tensors (`TensorList`) when the
function enables `Feature.LISTS` (TF's opt-in; without it such an append raises TF's
InaccessibleTensorError, see staging.py).

A list that a staged loop appends to becomes a loop variable made of two tensors: a buffer
of elements along a new leading dimension, and the number of elements so far. Two layouts:

- fixed: when the loop's trip count is known when tracing (a tensor with a static first
  dimension, a `tf.range` of constants, `maximum_iterations`), the buffer is allocated once
  at its final capacity and each append writes one row (`tensor_scatter_nd_update`). Shapes
  stay static, so this works under XLA; when every iteration appends unconditionally (no
  `break`), the final length is known too and `tf.stack(l)` is the buffer itself;
- growing: otherwise each append concatenates a row, and the buffer's first dimension is a
  shape invariant `None` (graph executor only: XLA needs static shapes).

How many elements one iteration appends (and of which dtype/shape) is learned by tracing the
loop body once beforehand (a probe, see staging.py), where lists are `TensorList`s in probe
mode that only record. After the loop the variable stays a `TensorList`: `tf.stack(l)`,
`tf.concat(l, axis)`, `l[i]`, `len(l)`, iterating and returning it work; other list methods
raise, naming the line.
"""
from __future__ import annotations

from ...ir import errors
from ...ir.registry import TT
from ...ir.shapes import TensorShape
from ..eager import dispatch
from ..function import func_graph
from ..eager.tensor import Tensor

_LIST_METHODS = {"pop", "insert", "extend", "remove", "clear", "sort", "reverse", "index",
                 "count", "copy"}


def _ops():
    from ..ops import array, math
    return array, math


def _shape_str(shape):
    return "<unknown>" if shape is None else str(TensorShape.from_tuple(shape))


class ProbeCell:
    """What a probe learned about one list: element type and appends per iteration."""

    def __init__(self, name, tt=None):
        self.name = name
        self.tt = tt
        self.where = None


class TensorList:
    """A staged Python list (see module doc). Immutable: `append` returns a new one."""

    def __init__(self, name, dtype, elem_shape, buffer, length, rep, capacity, static_length,
                 delta, owner=None, cell=None):
        self.name = name
        self.dtype = dtype
        self.elem_shape = elem_shape    # tuple (None for unknown dims)
        self.buffer = buffer
        self.length = length            # int32 scalar tensor
        self.rep = rep                  # "fixed" | "grow" | "probe"
        self.capacity = capacity        # fixed: rows in the buffer
        self.static_length = static_length
        self.delta = delta              # appends since the enclosing loop body began
        self.owner = owner              # the loop whose body made this (a loop frame)
        self.cell = cell                # probe mode

    # --- construction ----------------------------------------------------------------------
    @classmethod
    def probe(cls, name, cell, delta=0):
        return cls(name, None, None, None, None, "probe", None, None, delta, cell=cell)

    @classmethod
    def from_items(cls, name, items, tt, rep, extra_rows):
        """A list holding `items` (Python list of tensor-likes), room for `extra_rows` more
        (fixed) or growing."""
        array, _ = _ops()
        tensors = [_convert(x, tt.dtype if tt else None, name) for x in items]
        if tt is None:
            tt = TT(tensors[0].dtype, tuple(tensors[0].shape.as_tuple()))
        for t in tensors:
            _check_element(name, tt, t)
        if tt.shape is None or any(d is None for d in tt.shape):
            raise NotImplementedError(
                f"list '{name}' is appended to inside a TensorFlow loop with elements of "
                f"shape {_shape_str(tt.shape)}; staging it needs elements of a fully known "
                f"shape")
        parts = []
        if tensors:
            parts.append(array.stack(tensors))
        if rep == "fixed" and extra_rows:
            parts.append(array.zeros((extra_rows,) + tuple(tt.shape), tt.dtype))
        if not parts:
            parts.append(array.zeros((0,) + tuple(tt.shape), tt.dtype))
        buffer = parts[0] if len(parts) == 1 else array.concat(parts, 0)
        n = len(tensors)
        length = dispatch.convert_to_tensor(n, dtype=_int32())
        cap = n + extra_rows if rep == "fixed" else None
        return cls(name, tt.dtype, tuple(tt.shape), buffer, length, rep, cap, n, 0)

    def _with(self, buffer, length, static_length, delta, **kw):
        new = TensorList(self.name, self.dtype, self.elem_shape, buffer, length, self.rep,
                         self.capacity, static_length, delta, self.owner, self.cell)
        for k, v in kw.items():
            setattr(new, k, v)
        return new

    # --- loop plumbing ----------------------------------------------------------------------
    def components(self) -> list:
        return [self.buffer, self.length]

    def component_invariants(self) -> list:
        if self.rep == "grow":
            return [(None,) + tuple(self.elem_shape), ()]
        return [None, None]

    def rebuild(self, comps, static_length, delta, owner):
        return self._with(comps[0], comps[1], static_length, delta, owner=owner)

    def same_layout(self, other) -> bool:
        return isinstance(other, TensorList) and other.rep == self.rep and \
            other.dtype is self.dtype and other.capacity == self.capacity and \
            TensorShape.from_tuple(other.elem_shape).is_compatible_with(
                TensorShape.from_tuple(self.elem_shape))

    def grown(self, rows):
        """This list with room for `rows` more appends (outside any loop body)."""
        array, _ = _ops()
        if self.rep == "fixed":
            pad = array.zeros((rows,) + tuple(self.elem_shape), self.dtype)
            return self._with(array.concat([self.buffer, pad], 0), self.length,
                              self.static_length, self.delta, capacity=self.capacity + rows)
        return self

    def as_growing(self):
        return self._with(self.stack(), self.length, self.static_length, self.delta,
                          rep="grow", capacity=None)

    # --- list operations ---------------------------------------------------------------------
    def append(self, x):
        if self.rep == "probe":
            t = _convert(x, self.cell.tt.dtype if self.cell.tt else None, self.name)
            tt = TT(t.dtype, tuple(t.shape.as_tuple()) if t.shape.rank is not None else None)
            if self.cell.tt is None:
                self.cell.tt = tt
                self.cell.where = errors.user_frame()
            else:
                _check_element(self.name, self.cell.tt, t)
                merged = TensorShape.from_tuple(self.cell.tt.shape).most_specific_compatible_shape(
                    TensorShape.from_tuple(tt.shape))
                self.cell.tt = TT(self.cell.tt.dtype, merged.as_tuple())
            return TensorList.probe(self.name, self.cell,
                                    None if self.delta is None else self.delta + 1)
        array, _ = _ops()
        t = _convert(x, self.dtype, self.name)
        _check_element(self.name, TT(self.dtype, self.elem_shape), t)
        row = array.expand_dims(t, 0)
        if self.rep == "fixed" and self.static_length is not None and \
                self.static_length >= self.capacity:
            # Outside a loop, a full buffer just grows (shapes may change freely there).
            lst = self.grown(max(1, self.capacity))
            return lst.append(x)
        if self.rep == "fixed":
            index = array.reshape(self.length, (1, 1))
            buffer = array.tensor_scatter_nd_update(self.buffer, index, row)
        else:
            buffer = array.concat([self.buffer, row], 0)
        return self._with(buffer, self.length + 1,
                          None if self.static_length is None else self.static_length + 1,
                          None if self.delta is None else self.delta + 1)

    def stack(self):
        if self.rep == "probe":
            g = func_graph.current()
            tt = self._probe_tt()
            return g.placeholder(TT(tt.dtype, (None,) + tuple(tt.shape)), name="probe_list")
        if self.rep == "grow":
            return self.buffer
        array, math = _ops()
        if self.static_length is not None:
            if self.static_length == self.capacity:
                return self.buffer
            return self.buffer[:self.static_length]
        # The length is only known at run time: keep the first `length` rows.
        keep = math.less(array.range(self.capacity), self.length)
        return array.gather_nd(self.buffer, math.where(keep))

    def _probe_tt(self):
        if self.cell.tt is None:
            raise IndexError(f"list '{self.name}' is read before anything is appended to it")
        return self.cell.tt

    def length_value(self):
        """len(l): a Python int when known while tracing, else an int32 tensor."""
        if self.static_length is not None:
            return self.static_length
        if self.rep == "probe":
            return func_graph.current().placeholder(TT(_int32(), ()), name="probe_len")
        return self.length

    def __len__(self):
        if self.static_length is None:
            raise TypeError(f"len() of list '{self.name}' is only known when the function "
                            f"runs (it is a staged tensor list); AutoGraph converts `len(l)` "
                            f"in converted code to a tensor")
        return self.static_length

    def __getitem__(self, i):
        if isinstance(i, slice):
            return self.stack()[i]
        if self.rep == "probe":
            tt = self._probe_tt()
            return func_graph.current().placeholder(tt, name="probe_item")
        array, _ = _ops()
        if isinstance(i, int):
            if i < 0:
                i = (self.static_length + i) if self.static_length is not None else \
                    self.length + i
        else:
            i = dispatch.convert_to_tensor(i)
            if i.dtype is not _int32():
                from ..ops.math import cast
                i = cast(i, _int32())
        return array.gather(self.buffer, i)

    def __iter__(self):
        n = len(self)
        return (self[i] for i in range(n))

    def _as_tensor(self):
        return self.stack()

    @property
    def shape(self):
        return TensorShape.from_tuple((self.static_length,) + tuple(self.elem_shape or ()))

    def __getattr__(self, attr):
        if attr in _LIST_METHODS:
            raise NotImplementedError(
                f"list '{self.name}' is staged as a tensor list (it is appended to inside a "
                f"TensorFlow loop), and `{self.name}.{attr}()` cannot be staged; only append, "
                f"indexing, len(), iteration, tf.stack and tf.concat are supported on it. Use "
                f"a tensor instead")
        raise AttributeError(attr)

    def __setitem__(self, i, v):
        raise NotImplementedError(
            f"list '{self.name}' is staged as a tensor list (it is appended to inside a "
            f"TensorFlow loop); assigning to `{self.name}[...]` cannot be staged. Use "
            f"tf.tensor_scatter_nd_update on a tensor instead")

    def __repr__(self):
        n = self.static_length if self.static_length is not None else "?"
        return f"<staged list '{self.name}': {n} x {self.dtype.name if self.dtype else '?'}" \
               f"{list(self.elem_shape) if self.elem_shape is not None else ''}>"


def _int32():
    from ...ir import dtypes as D
    return D.int32


def _convert(x, dtype, name):
    try:
        if isinstance(x, Tensor) or hasattr(x, "_as_tensor") or dtype is None:
            return dispatch.convert_to_tensor(x)
        return dispatch.convert_to_tensor(x, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise TypeError(f"list '{name}' is appended to inside a TensorFlow loop, so its "
                        f"elements must be tensors; {x!r} is not ({e})") from None


def _check_element(name, tt, t):
    if t.dtype is not tt.dtype:
        raise TypeError(f"list '{name}' is staged as a tensor list of {tt.dtype.name} "
                        f"elements, but a {t.dtype.name} element is appended")
    shape = t.shape.as_tuple() if t.shape.rank is not None else None
    if not TensorShape.from_tuple(tt.shape).is_compatible_with(TensorShape.from_tuple(shape)):
        raise ValueError(f"list '{name}' is staged as a tensor list of elements of shape "
                         f"{_shape_str(tt.shape)}, but an element of shape "
                         f"{_shape_str(shape)} is appended")


def concat_list(lst: TensorList, axis):
    """tf.concat(l, axis) of a staged list: its elements joined along `axis`."""
    array, _ = _ops()
    stacked = lst.stack()
    rank = len(lst.elem_shape)
    axis = int(axis)
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        raise ValueError(f"concat: axis {axis} is out of range for elements of rank {rank}")
    if any(d is None for d in lst.elem_shape):
        raise NotImplementedError("concat of a staged list needs elements of known shape")
    perm = tuple(range(1, axis + 1)) + (0,) + tuple(range(axis + 1, rank + 1))
    moved = array.transpose(stacked, perm) if axis else stacked
    shape = list(lst.elem_shape)
    shape[axis] = -1
    return array.reshape(moved, tuple(shape))
