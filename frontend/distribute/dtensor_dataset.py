"""TF's `tf.experimental.dtensor.DTensorDataset`: a `tf.data` pipeline whose batches arrive as
DTensors laid out over a mesh.

As in TF, the dataset is batched to the per-replica batch size (`global_batch_size` divided by
the size of the mesh dimension `batch_dim`, or taken as it comes with
`dataset_already_batched=True`), and each global batch is that many consecutive per-replica
batches: replica i of the batch dimension holds the i-th. Iteration is eager, as in TF's
DTensor guides (each batch is then passed to a `tf.function`).
"""
from __future__ import annotations

import numpy as np

from .. import nest
from ...ir.shapes import TensorShape
from ..data.dataset import Dataset
from ..eager.tensor import Tensor
from ..function import func_graph
from ..function.specs import TensorSpec
from .dtensor import Layout, Mesh, relayout


class DTensorDataset:
    """Batches of `dataset` as DTensors in `layouts` (a structure matching its elements)."""

    def __init__(self, dataset, *, mesh: Mesh, layouts, global_batch_size: int,
                 dataset_already_batched: bool = False, batch_dim: str | None = None,
                 prefetch: int | None = None, tf_data_service_config=None):
        if tf_data_service_config is not None:
            raise NotImplementedError("Multi-client DTensorDataset is currently not supported.")
        if not isinstance(dataset, Dataset):
            raise TypeError(f"DTensorDataset takes a tf.data.Dataset, got "
                            f"{type(dataset).__name__}")
        nest.assert_same_structure(dataset.element_spec, layouts)
        flat_layouts = nest.flatten(layouts)
        flat_specs = nest.flatten(dataset.element_spec)
        if batch_dim:
            if batch_dim not in mesh.dim_names:
                raise ValueError(f"Dimension {batch_dim} does not exist in mesh.Available "
                                 f"dimensions: {','.join(mesh.dim_names)}")
            replicas = mesh.dim_size(batch_dim)
            for layout in flat_layouts:
                if batch_dim != layout.sharding_specs[0]:
                    raise ValueError(f"batch_dim {batch_dim} was specified but at least one "
                                     f"layout did not contain it: {layout}")
        else:
            replicas = 1
        _validate(flat_layouts, flat_specs, dataset_already_batched)
        if global_batch_size % replicas:
            # TF fails each batch later, with an UnknownError from its layout check.
            raise ValueError(f"global_batch_size {global_batch_size} is not divisible by the "
                             f"{replicas} replicas of mesh dimension {batch_dim}")
        per_replica = global_batch_size // replicas
        if dataset_already_batched:
            have = flat_specs[0].shape.as_list()[0]
            if have != per_replica:
                raise ValueError(f"per_replica_batch_size does not matched expected size based "
                                 f"on the mesh, got {have} but expected {per_replica}.")
        else:
            dataset = dataset.batch(per_replica, drop_remainder=True)
        # one element per global batch: `replicas` consecutive per-replica batches
        self._batches = dataset.batch(replicas, drop_remainder=True)
        if prefetch is not None:
            self._batches = self._batches.prefetch(prefetch)
        self._mesh = mesh
        self._layouts = layouts
        self._element_spec = nest.pack_sequence_as(dataset.element_spec, [
            TensorSpec(TensorShape([global_batch_size]).concatenate(s.shape[1:]), s.dtype,
                       s.name) for s in nest.flatten(dataset.element_spec)])

    @property
    def element_spec(self):
        """The global batch's specs (batch dimension `global_batch_size`)."""
        return self._element_spec

    def __iter__(self):
        if func_graph.current() is not None:
            raise NotImplementedError("A DTensorDataset is iterated eagerly: iterate it "
                                      "outside the tf.function and pass each batch in")
        for group in self._batches:
            yield nest.map_structure(_global_batch, group, self._layouts)


def _global_batch(group: Tensor, layout: Layout):
    """[replicas, per_replica, ...] -> the global batch, laid out."""
    value = group.numpy()
    return relayout(np.reshape(value, (-1,) + value.shape[2:]), layout)


def _validate(flat_layouts, flat_specs, already_batched: bool) -> None:
    """TF's checks of the layouts against the element specs (its messages)."""
    if not flat_specs:
        raise ValueError("Expected input element spec of at least one element, was empty.")
    first_shape = flat_specs[0].shape
    for layout, spec in zip(flat_layouts, flat_specs):
        if spec.shape.rank is None:
            raise ValueError(f"Dataset element shape must have a valid rank, got spec {spec}.")
        expected = spec.shape.rank + (0 if already_batched else 1)
        if layout.rank != expected:
            raise ValueError(f"Expected layout with rank {expected} for element spec {spec}, "
                             f"got layout {layout.sharding_specs}. Check that the dataset is "
                             f"not batched before passing to DTensorDataset.")
        if already_batched:
            size = first_shape.as_list()[0]
            if size is None:
                raise ValueError(f"Size of batch dimension of element spec {spec} is None. "
                                 f"Ensure drop_remainder=True when batching the dataset.")
            if spec.shape.as_list()[0] != size:
                raise ValueError(f"Size of batch dimension of element spec {spec} does not "
                                 f"match expected size {size}.")
