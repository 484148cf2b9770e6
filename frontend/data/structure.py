"""An element's structure: nested `TensorSpec`s outside, a flat tuple of NumPy arrays inside
(one component per spec leaf: a SparseTensor or RaggedTensor leaf is one component holding
its arrays, composites.py).

tf.data's nesting differs from `tf.nest` in one way: a Python list is a tensor, not a
sequence (`from_tensor_slices([1, 2, 3])` yields scalars), so lists are converted before the
structure is walked. The pipeline moves flat tuples of arrays ("components"); a value reaches
user code as eager `Tensor`s packed into the element's structure.
"""
from __future__ import annotations

from ...ir.shapes import TensorShape
from ..function import func_graph
from .. import nest
from . import composites
from ..eager.dispatch import convert_to_tensor
from ..function.specs import TensorSpec
from ..function.type_spec import TypeSpec
from ..eager.tensor import Tensor

# The dataset classes this module describes but sits below (their modules import it),
# registered by their modules when imported: "Dataset" (dataset.py: a value whose spec is a
# DatasetSpec) and "Materialized" (combine.py: a dataset of given components, the placeholder
# of a dataset component).
DATASET_CLASSES: dict = {}


def host(value, dtype=None):
    """`value` as an eager Tensor, also while a function is traced (a dataset built inside
    `tf.function` holds Python and eager values, as its recipe runs on the host)."""
    if hasattr(value, "_node"):
        raise NotImplementedError(
            f"flowjit's tf.data takes the arguments of a dataset as Python or eager values; "
            f"{value.name} is a tensor of the function being traced. Build the dataset "
            f"outside the function, or pass the value as a Python number.")
    with func_graph.init_scope():
        return convert_to_tensor(value, dtype=dtype)


def normalize(value, convert=host):
    """`value` with every leaf (and every list) converted to an eager Tensor (or with
    `convert`: a traced function's state may hold graph tensors)."""
    if composites.value_rule(value) is not None:
        return value if convert is not host else _eager_composite(value)
    if isinstance(value, list) or not nest.is_nested(value):
        return value if isinstance(value, Tensor) and not hasattr(value, "_node") \
            else convert(value)
    kind = nest.kind_of(value)
    return nest.rebuild(value, kind, [normalize(c, convert)
                                      for c in nest.children(value, kind)])


def _eager_composite(value):
    for t in value._components():
        host(t)   # a traced function's tensor is refused with host's explanation
    return value


def spec_of(value):
    if isinstance(value, DATASET_CLASSES["Dataset"]):
        return DatasetSpec(value.element_spec)
    if composites.value_rule(value) is not None:
        return value._type_spec
    return TensorSpec(value.shape, value.dtype)


def leaves(value) -> list:
    """The leaves of an element: tensors and composite tensors (not their components)."""
    return nest.flatten(value, expand_composites=False)


def map_leaves(fn, value):
    return nest.map_structure(fn, value, expand_composites=False)


def specs_of(value):
    """(element_spec, flat components) of a normalized value."""
    pairs = [(composites.value_rule(t) or composites.DenseRule).from_value(t)
             for t in leaves(value)]
    spec = nest.pack_sequence_as(value, [p[0] for p in pairs], expand_composites=False)
    return spec, tuple(p[1] for p in pairs)


def flat_specs(element_spec) -> list:
    return nest.flatten(element_spec)


class DatasetSpec(TypeSpec):
    """TF's `tf.data.DatasetSpec`: the type of a component that is itself a dataset
    (`window`'s elements); `value_type` is set by dataset.py, which defines the class."""

    value_type = None

    def __init__(self, element_spec, dataset_shape=()):
        self.element_spec = element_spec
        self.shape = TensorShape(dataset_shape)

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and other.element_spec == self.element_spec

    def __hash__(self):
        return hash(repr(self.element_spec))

    def __repr__(self):
        return f"DatasetSpec({self.element_spec!r}, TensorShape([]))"


def _as_value(spec, component):
    return component if isinstance(spec, DatasetSpec) else \
        composites.rule(spec).to_value(spec, component)


def to_tensors(element_spec, components):
    """The element as the user sees it: eager Tensors in the spec's structure."""
    flat = nest.flatten(element_spec)
    return nest.pack_sequence_as(element_spec, [_as_value(s, c)
                                                for s, c in zip(flat, components)])


def to_numpy(element_spec, components):
    flat = nest.flatten(element_spec)
    return nest.pack_sequence_as(element_spec, [composites.rule(s).to_numpy(s, c)
                                                for s, c in zip(flat, components)])


def batched(element_spec, batch):
    return nest.map_structure(lambda s: composites.rule(s).batched_spec(s, batch),
                              element_spec)


def unbatched(element_spec):
    def drop(s):
        if s.shape.rank == 0:
            raise ValueError("Input element must have a non-scalar value in each component.")
        return composites.rule(s).unbatched_spec(s)
    return nest.map_structure(drop, element_spec)


def relaxed(a, b):
    """The most specific spec compatible with both (TF's rule for the branches of a choice)."""
    nest.assert_same_structure(a, b, check_types=False)

    def both(x, y):
        if type(x) is not type(y):
            raise TypeError(f"{x} and {y} are values of different kinds")
        return composites.rule(x).relaxed(x, y)
    return nest.map_structure(both, a, b)


def _placeholder(spec):
    if isinstance(spec, DatasetSpec):
        return DATASET_CLASSES["Materialized"](spec.element_spec, [])
    return composites.rule(spec).placeholder(spec)


def zeros(flat_specs_):
    """Placeholder components of the specs' shapes (unknown dims 0; an empty dataset for a
    dataset component): an empty Optional's value, a probe of a function."""
    return tuple(_placeholder(s) for s in flat_specs_)


def flatten_like(spec, value) -> list:
    """`value`'s leaves at the positions of `spec`'s leaves (a list there is one leaf: a
    tensor, or a shape)."""
    if not nest.is_nested(spec):
        return [value]
    kind = nest.kind_of(spec)
    if nest.kind_of(value) != kind or isinstance(value, list) != isinstance(spec, list):
        raise TypeError(f"structure mismatch: {value!r}")
    if kind == nest.MAPPING:
        if set(spec) != set(value):
            raise ValueError(f"keys differ: {sorted(spec)} vs {sorted(value)}")
        return [x for k in sorted(spec) for x in flatten_like(spec[k], value[k])]
    if len(spec) != len(value):
        raise ValueError(f"length {len(value)} where {len(spec)} was expected")
    return [x for s, v in zip(spec, value) for x in flatten_like(s, v)]
