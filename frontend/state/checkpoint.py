"""`tf.train.Checkpoint`, `CheckpointManager` and `latest_checkpoint`, stored without pickle.

The object graph is walked from the Checkpoint's keyword arguments through trackable children:
a Module's attributes (sorted), list/tuple/dict items, an optimizer's counters. Each Variable is
saved once, under its first path and TF's key (`model/layers/0/w/.ATTRIBUTES/VARIABLE_VALUE`);
an optimizer's slot is keyed by its variable's path as TF does
(`model/w/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE`), so slots follow their
variables whatever order the optimizer created them in. A checkpoint `prefix` is one
safetensors file `prefix.safetensors` whose metadata holds the JSON object graph and a CRC32C
of every tensor and of the header (format version 2; version 1 files, without checksums, still
load). Writing it is atomic and durable (runtime/safe_files.py). Saving writes the new
checkpoint, then the state file, and only then deletes old checkpoints, so a kill at any moment
leaves the last complete checkpoint named by the state file. Paths read from a state file stay
inside its folder, and a manager deletes only its own `name-N` files there. Restore checks every value's shape and dtype before assigning any, and keeps values
for objects that do not exist yet: they are assigned when a Module attribute or an optimizer
slot creates them (TF's deferred restoration).
"""
from __future__ import annotations

import json
import os
import re
import time
import warnings

import numpy as np

from ...ir import dtypes as D
from ...ir.errors import DataLossError, InvalidArgumentError, NotFoundError
from ...runtime import safe_files, safetensors
from ..export import tf_export
from ..function import func_graph
from . import module as module_lib, optimizers
from .variables import Variable

SUFFIX = ".safetensors"
_VALUE = "/.ATTRIBUTES/VARIABLE_VALUE"
_FORMAT = "flowjit.checkpoint/2"
_FORMAT_UNCHECKED = "flowjit.checkpoint/1"   # written before checksums
_STATE_FILE = "checkpoint"
_MAX_STATE_BYTES = 1 << 20


# --- the object graph ------------------------------------------------------------------------
def _children(obj):
    """(name, child) pairs of a trackable object, in a stable order."""
    if isinstance(obj, (Checkpoint, module_lib.Module)):
        attrs = vars(obj)
        return [(k, attrs[k]) for k in sorted(attrs) if not k.startswith("_checkpoint_")]
    if isinstance(obj, optimizers.Optimizer):
        return [("iter", obj.iterations), ("learning_rate", obj._lr)]
    if isinstance(obj, dict):
        return [(str(k), obj[k]) for k in sorted(obj, key=repr)]
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj)]
    own = getattr(obj, "_checkpoint_children", None)
    return own() if own is not None else []


def _is_trackable(obj) -> bool:
    # An object may list its own children (Variables it refreshes from its state when
    # `_checkpoint_children()` is called: a tf.data iterator's position).
    return isinstance(obj, (Variable, module_lib.Module, optimizers.Optimizer, Checkpoint,
                            list, tuple, dict)) or hasattr(obj, "_checkpoint_children")


@tf_export("train.TrackableView")
class TrackableView:
    """TF's `tf.train.TrackableView`: the trackable objects a checkpoint of `root` reaches
    (children in the checkpoint's order: a Module's attributes sorted)."""

    def __init__(self, root):
        self._root = root

    @classmethod
    def children(cls, obj, save_type="checkpoint", **kwargs):
        """{name: child} of `obj`'s trackable children."""
        return {name: child for name, child in _children(obj) if _is_trackable(child)}

    @property
    def root(self):
        return self._root

    def descendants(self):
        """The root and every trackable object below it, each once, breadth first."""
        found, seen, at = [self._root], {id(self._root)}, 0
        while at < len(found):
            for child in self.children(found[at]).values():
                if id(child) not in seen:
                    seen.add(id(child))
                    found.append(child)
            at += 1
        return found


def _walk(pairs, prefix, seen, variables, objects):
    """Collect {variable key: Variable} and {id(object): (path, object)} from the (name,
    child) `pairs` and below them."""
    for name, child in pairs:
        if not _is_trackable(child) or id(child) in seen:
            continue
        path = f"{prefix}{name}"
        seen.add(id(child))
        objects[id(child)] = (path, child)
        if isinstance(child, Variable):
            variables[path + _VALUE] = child
        else:
            _walk(_children(child), path + "/", seen, variables, objects)


def _slot_key(var_path, opt_path, slot):
    return f"{var_path}/.OPTIMIZER_SLOT/{opt_path}/{slot}{_VALUE}"


def _graph_of(root, prefix=""):
    """({key: Variable}, {id: (path, object)}) of everything reachable from `root`, slots
    included."""
    variables, objects = {}, {}
    _walk(_children(root), prefix, {id(root)}, variables, objects)
    for opt_path, opt in [po for po in objects.values()
                          if isinstance(po[1], optimizers.Optimizer)]:
        for ref, slots in opt._slots.items():
            found = objects.get(id(ref.deref()))
            if found is not None:
                for slot, var in slots.items():
                    variables[_slot_key(found[0], opt_path, slot)] = var
    return variables, objects


def _check_value(key, var, value):
    """Raise TF's error when a saved array does not fit `var` (dtype, then shape)."""
    if value.dtype != var.dtype.np:
        raise InvalidArgumentError(
            None, None, f"tensor_name = {key}; expected dtype {var.dtype.name} does not equal "
                        f"original dtype {D.as_dtype(value.dtype).name} (restoring "
                        f"{var.name})")
    if not var.shape.is_compatible_with(value.shape):
        raise ValueError(f"Received incompatible tensor with shape {value.shape} when attempting "
                         f"to restore variable with shape {tuple(var.shape.as_list())} and name "
                         f"{var.name} (checkpoint key {key}).")


# --- reading and writing -----------------------------------------------------------------------
def _held_value(handle):
    """The variable's value as a host array, taken under the variable's lock (not while an XLA
    call donates it); while it is held, an update in another thread makes a new array instead
    of writing into it (runtime/kernels/state.py)."""
    with handle.lock:
        return np.asarray(handle.value)


def write_values(path: str, variables: dict, object_graph: dict) -> int:
    """Write a checkpoint file; returns its header's CRC32C."""
    tensors = {k: _held_value(v._handle) for k, v in variables.items()}
    return safetensors.write(path, tensors, {"format": _FORMAT,
                                      "object_graph": json.dumps(object_graph)})


def read_values(path: str) -> dict:
    """{key: ndarray} of a checkpoint file; NotFoundError / DataLossError as TF."""
    return read_file(path)[0]


def read_file(path: str) -> tuple[dict, dict]:
    """({key: ndarray}, metadata) of a checkpoint file, checked."""
    if not os.path.exists(path):   # a FIFO or a device exists: DataLossError when read
        raise NotFoundError(
            None, None, f"Error when restoring from checkpoint or SavedModel at "
                        f"{path.removesuffix(SUFFIX)}: Failed to find any matching files for "
                        f"{path.removesuffix(SUFFIX)}\nPlease double-check that the path is "
                        f"correct. You may be missing the checkpoint suffix (e.g. the '-1' in "
                        f"'path/to/ckpt-1').")
    tensors, meta = safetensors.read(path)
    if meta.get("format") not in (_FORMAT, _FORMAT_UNCHECKED):
        raise DataLossError(None, None, f"{path} is not a flowjit checkpoint "
                                        f"(format {meta.get('format')!r})")
    if meta["format"] == _FORMAT and safetensors.TENSOR_CRCS not in meta:
        raise DataLossError(None, None, f"{path}: the checksums of a version 2 checkpoint are "
                                        f"missing (the file is corrupted)")
    if "object_graph" in meta:
        _check_object_graph(meta["object_graph"], path)
    return tensors, meta


def _check_object_graph(text, path):
    """A checkpoint's graph lists [path, class] pairs; a SavedModel's variables say so."""
    graph = safe_files.loads_json(text.encode(), f"{path} (object graph)")
    if graph == {"saved_model": True}:
        return
    objects = graph.get("objects") if isinstance(graph, dict) else None
    if set(graph if isinstance(graph, dict) else ()) != {"objects"} or \
            not isinstance(objects, list) or not all(
                isinstance(o, list) and len(o) == 2 and all(isinstance(x, str) for x in o)
                for o in objects):
        raise DataLossError(None, None, f"{path}: the object graph is malformed (the file is "
                                        f"corrupted)")


def _object_graph(objects) -> dict:
    return {"objects": sorted([path, type(obj).__name__] for path, obj in objects.values())}


# --- deferred restoration -----------------------------------------------------------------------
_PENDING: list = []   # CheckpointLoadStatus objects with values not yet assigned


def _install_hooks():
    on = bool(_PENDING)
    module_lib._setattr_hook = _on_setattr if on else None
    optimizers._slots_hook = _on_slots if on else None


def _on_setattr(obj, name, value):
    for status in list(_PENDING):
        status._attach(obj, name, value)


def _on_slots(opt, var, slots):
    for status in list(_PENDING):
        status._attach_slots(opt, var, slots)


class CheckpointLoadStatus:
    """What `restore`/`read` matched; `assert_consumed()` and friends as TF."""

    def __init__(self, values, variables, objects, root=None, optional=()):
        self._root = root
        self._values = values                 # key -> ndarray, unassigned ones
        # key -> Variable not yet bound to a value (but for `optional` ones)
        self._python = {k: v for k, v in variables.items() if k not in optional}
        self._objects = objects               # id -> (path, object)
        self._bind(variables)
        if self._values:
            _PENDING.append(self)
            _install_hooks()

    def _bind(self, variables):
        matched = [(k, v, self._values[k]) for k, v in variables.items() if k in self._values]
        for key, var, value in matched:   # check them all before assigning any
            _check_value(key, var, value)
        for key, var, value in matched:   # written to the handle: no graph op, even mid-trace
            var._handle.value = value
            del self._values[key]
            self._python.pop(key, None)
        if not self._values and self in _PENDING:
            _PENDING.remove(self)
            _install_hooks()

    def _attach(self, obj, name, value):
        found = self._objects.get(id(obj))
        if found is None or not _is_trackable(value):
            return
        variables, objects = {}, {}
        _walk([(name, value)], found[0] + "/", set(self._objects), variables, objects)
        self._objects.update(objects)
        self._python.update(variables)
        self._bind(variables)
        if self._values and any(key not in self._values for key in variables) and \
                self._root is not None:
            # Variables that appear under a path the checkpoint does not name were saved by
            # another route (a Keras optimizer's slots: appended to its `_variables` list,
            # which precedes `_velocities` in the walk): walk the whole graph again.
            variables, objects = self._root._graph()
            self._objects.update(objects)
            self._bind({k: v for k, v in variables.items() if k in self._values})

    def _attach_slots(self, opt, var, slots):
        opt_found, var_found = self._objects.get(id(opt)), self._objects.get(id(var))
        if opt_found is None or var_found is None:
            return
        self._bind({_slot_key(var_found[0], opt_found[0], s): v for s, v in slots.items()})

    def assert_consumed(self):
        if self._values:
            key = sorted(self._values)[0]
            dotted = ".".join(key.removesuffix(_VALUE).split("/"))
            raise AssertionError(f"Unresolved object in checkpoint (root).{dotted}: attributes "
                                 f"{{\n  name: \"VARIABLE_VALUE\"\n  checkpoint_key: \"{key}\"\n}}"
                                 f"\nhas_checkpoint_values {{\n  value: true\n}}\n")
        return self.assert_existing_objects_matched()

    def assert_existing_objects_matched(self):
        unbound = list(self._python.values())
        if unbound:
            shown = unbound[:10]
            raise AssertionError(
                f"Found {len(unbound)} Python objects that were not bound to checkpointed "
                f"values, likely due to changes in the Python program. Showing {len(shown)} of "
                f"{len(unbound)} unmatched objects: [{', '.join(map(repr, shown))}]")
        return self

    def assert_nontrivial_match(self):
        return self

    def expect_partial(self):
        """Silence the warning about unused values and stop waiting for them."""
        if self in _PENDING:
            _PENDING.remove(self)
            _install_hooks()
        return self

    def run_restore_ops(self, session=None):
        return None

    def initialize_or_restore(self, session=None):
        return None


# --- the public classes --------------------------------------------------------------------------
class Checkpoint:
    """TF's `tf.train.Checkpoint(root=None, **objects)`."""

    def __init__(self, root=None, **kwargs):
        for name, obj in kwargs.items():
            if not _is_trackable(obj):
                raise ValueError(f"`Checkpoint` was expecting a trackable object (an object "
                                 f"derived from `Trackable`), got {obj!r}.")
            setattr(self, name, obj)
        with func_graph.init_scope():
            self._checkpoint_save_counter = Variable(np.int64(0), trainable=False,
                                                     name="save_counter")
        self._checkpoint_root = root

    @property
    def save_counter(self) -> Variable:
        return self._checkpoint_save_counter

    def _graph(self):
        variables, objects = _graph_of(self)
        if self._checkpoint_root is not None:
            more, more_objects = _graph_of(self._checkpoint_root)
            variables.update(more)
            objects.update(more_objects)
        variables["save_counter" + _VALUE] = self._checkpoint_save_counter
        return variables, objects

    def write(self, file_prefix, options=None) -> str:
        """Write the checkpoint to `file_prefix` (no counter, no state file); returns it."""
        file_prefix = os.fspath(file_prefix)
        variables, objects = self._graph()
        folder = os.path.dirname(file_prefix)
        if folder:
            os.makedirs(folder, exist_ok=True)
        write_values(file_prefix + SUFFIX, variables, _object_graph(objects))
        return file_prefix

    def save(self, file_prefix, options=None) -> str:
        """Write `file_prefix-N` (N = the incremented save counter) and record it as the
        latest checkpoint of its folder."""
        self._checkpoint_save_counter.assign_add(np.int64(1))
        path = self.write(f"{os.fspath(file_prefix)}-{int(self._checkpoint_save_counter)}")
        folder = os.path.dirname(path)
        try:
            state = _read_state(folder) or {"all_model_checkpoint_paths": []}
        except DataLossError as e:   # replaced below: a damaged state must not stop saving
            warnings.warn(f"{e}; writing a new one", stacklevel=2)
            state = {"all_model_checkpoint_paths": []}
        paths = [p for p in state["all_model_checkpoint_paths"] if p != path]
        _write_state(folder, paths + [path])
        _remove_stale_temps(folder, os.path.basename(os.fspath(file_prefix)))
        return path

    def read(self, save_path, options=None) -> CheckpointLoadStatus:
        values = read_values(os.fspath(save_path) + SUFFIX)
        variables, objects = self._graph()
        for status in [s for s in _PENDING if s._root is self]:
            status.expect_partial()   # a newer restore replaces the pending one
        # As TF, a file without a save counter (a SavedModel's variables) still matches.
        return CheckpointLoadStatus(values, variables, objects, root=self,
                                    optional=("save_counter" + _VALUE,))

    def restore(self, save_path, options=None) -> CheckpointLoadStatus:
        """Assign the saved values to the matching Variables now, and to those created later
        under the same paths when they appear. `None` restores nothing (as TF)."""
        if save_path is None:
            return CheckpointLoadStatus({}, {}, {})
        return self.read(save_path, options)


def _state_error(folder, why):
    return DataLossError(None, None, f"checkpoint state file "
                                     f"{os.path.join(folder or '.', _STATE_FILE)} {why}")


def _inside(folder, name) -> str:
    """`folder/name` for a checkpoint named in a state file: a state file must not make a
    reader open, or a manager delete, files outside its folder."""
    try:
        return safe_files.resolve_inside(folder, name)
    except ValueError as e:
        raise _state_error(folder, f"names the checkpoint {e}") from None


def _read_state(folder) -> dict | None:
    """The state file of `folder` as {"model_checkpoint_path": path or None,
    "all_model_checkpoint_paths": [paths]} (paths joined to `folder`), None if there is none;
    DataLossError if it is not a small regular file of the expected JSON."""
    path = os.path.join(folder or ".", _STATE_FILE)
    if not os.path.lexists(path):
        return None
    state = safe_files.loads_json(
        safe_files.read_regular(path, _MAX_STATE_BYTES, "checkpoint state file"), path)
    if not isinstance(state, dict):
        raise _state_error(folder, "is not a JSON object")
    names = state.get("all_model_checkpoint_paths")
    latest = state.get("model_checkpoint_path")
    if not isinstance(names, list) or not (latest is None or isinstance(latest, str)):
        raise _state_error(folder, "is malformed: model_checkpoint_path must be a string and "
                                   "all_model_checkpoint_paths a list of strings")
    return {"model_checkpoint_path": None if latest is None else _inside(folder, latest),
            "all_model_checkpoint_paths": [_inside(folder, n) for n in names]}


def _write_state(folder, paths):
    names = [os.path.relpath(p, folder or ".") for p in paths]
    state = {"model_checkpoint_path": names[-1] if names else None,
             "all_model_checkpoint_paths": names, "timestamp": time.time()}
    safe_files.atomic_write(os.path.join(folder or ".", _STATE_FILE),
                            json.dumps(state, indent=1).encode())


def _remove_stale_temps(folder, checkpoint_name):
    """Temporary files of saves killed midway (their writer is gone)."""
    safe_files.remove_stale_temps(folder, (_STATE_FILE + ".", checkpoint_name + "-"))


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint recorded in `checkpoint_dir`, or None."""
    state = _read_state(os.fspath(checkpoint_dir))
    if state is None or not state["model_checkpoint_path"]:
        return None
    path = state["model_checkpoint_path"]
    return path if os.path.isfile(path + SUFFIX) else None


class CheckpointManager:
    """TF's `tf.train.CheckpointManager(checkpoint, directory, max_to_keep, ...)`."""

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None,
                 init_fn=None):
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got "
                             f"{max_to_keep}.")
        if keep_checkpoint_every_n_hours is not None or checkpoint_interval is not None:
            raise NotImplementedError("CheckpointManager: keep_checkpoint_every_n_hours and "
                                      "checkpoint_interval are not supported")
        self._checkpoint = checkpoint
        self._init_fn = init_fn
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._name = checkpoint_name
        self._prefix = os.path.join(self._directory, checkpoint_name)
        state = _read_state(self._directory)
        self._paths = [p for p in (state or {}).get("all_model_checkpoint_paths", [])
                       if os.path.isfile(p + SUFFIX)]
        _remove_stale_temps(self._directory, checkpoint_name)

    @property
    def directory(self):
        return self._directory

    @property
    def checkpoints(self) -> list:
        return list(self._paths)

    @property
    def latest_checkpoint(self):
        return self._paths[-1] if self._paths else None

    def save(self, checkpoint_number=None, check_interval=True, options=None) -> str:
        counter = self._checkpoint.save_counter
        counter.assign_add(np.int64(1))
        number = int(counter) if checkpoint_number is None else int(checkpoint_number)
        path = self._checkpoint.write(f"{self._prefix}-{number}")
        paths = [p for p in self._paths if p != path] + [path]
        cut = 0 if self._max_to_keep is None else max(0, len(paths) - self._max_to_keep)
        stale, self._paths = paths[:cut], paths[cut:]
        # The state names the new checkpoint before any old one goes: a kill in between
        # leaves extra files, never a state without a complete checkpoint.
        _write_state(self._directory, self._paths)
        for old in stale:
            self._delete(old)
        _remove_stale_temps(self._directory, self._name)
        return path

    def _delete(self, prefix):
        """Delete a checkpoint this manager's naming scheme wrote (`name-N` in its folder);
        anything else a state file listed is only forgotten."""
        own = os.path.dirname(prefix) == self._directory and re.fullmatch(
            re.escape(self._name) + r"-[0-9]+", os.path.basename(prefix))
        if own and os.path.isfile(prefix + SUFFIX) and not os.path.islink(prefix + SUFFIX):
            os.remove(prefix + SUFFIX)

    def restore_or_initialize(self):
        """Restore the latest checkpoint and return its path, else run `init_fn`."""
        if self.latest_checkpoint is not None:
            self._checkpoint.restore(self.latest_checkpoint)
            return self.latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None

