"""TF's checkpoint-reading API: `tf.train.load_checkpoint` (a CheckpointReader),
`load_variable`, `list_variables` and `get_checkpoint_state`.

As TF, a checkpoint lists `_CHECKPOINTABLE_OBJECT_GRAPH` (a string scalar) beside its
variables; here its value is the object graph's JSON, where TF's is a serialized proto.
"""
from __future__ import annotations

import os

from ...ir import dtypes as D
from ...ir.errors import NotFoundError
from . import checkpoint

OBJECT_GRAPH = "_CHECKPOINTABLE_OBJECT_GRAPH"


class CheckpointReader:
    """The tensors of one checkpoint file, read (and checked) once."""

    def __init__(self, prefix):
        self._tensors, meta = checkpoint.read_file(os.fspath(prefix) + checkpoint.SUFFIX)
        self._object_graph = meta.get("object_graph", "{}").encode()

    def get_variable_to_shape_map(self) -> dict:
        shapes = {k: list(v.shape) for k, v in self._tensors.items()}
        shapes[OBJECT_GRAPH] = []
        return shapes

    def get_variable_to_dtype_map(self) -> dict:
        dtypes = {k: D.from_numpy(v.dtype) for k, v in self._tensors.items()}
        dtypes[OBJECT_GRAPH] = D.string
        return dtypes

    def has_tensor(self, name) -> bool:
        return name in self._tensors or name == OBJECT_GRAPH

    def get_tensor(self, name):
        if name == OBJECT_GRAPH:
            return self._object_graph
        if name not in self._tensors:
            raise NotFoundError(None, None, f"Key {name} not found in checkpoint")
        return self._tensors[name].copy()


def _prefix(ckpt_dir_or_file) -> str:
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        found = checkpoint.latest_checkpoint(path)
        if found is None:   # TF's class and text
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given "
                             f"directory {path}")
        return found
    return path


def load_checkpoint(ckpt_dir_or_file) -> CheckpointReader:
    """A reader of a checkpoint (a prefix, or a folder's latest)."""
    return CheckpointReader(_prefix(ckpt_dir_or_file))


def load_variable(ckpt_dir_or_file, name):
    """The saved value of `name` (a trailing `:0` is ignored, as TF)."""
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name.removesuffix(":0"))


def list_variables(ckpt_dir_or_file) -> list:
    """[(key, shape)] of a checkpoint, sorted by key, `_CHECKPOINTABLE_OBJECT_GRAPH`
    included."""
    return sorted(load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map().items())


class CheckpointState:
    """TF's CheckpointState: the newest checkpoint and all those kept, as paths."""

    def __init__(self, model_checkpoint_path, all_model_checkpoint_paths):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = []
        self.last_preserved_timestamp = 0.0

    def __repr__(self):
        return (f"CheckpointState(model_checkpoint_path={self.model_checkpoint_path!r}, "
                f"all_model_checkpoint_paths={self.all_model_checkpoint_paths!r})")


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The folder's state file as a CheckpointState (paths joined to the folder), or None."""
    state = checkpoint._read_state(os.fspath(checkpoint_dir))
    if state is None:
        return None
    return CheckpointState(state["model_checkpoint_path"],
                           state["all_model_checkpoint_paths"])
