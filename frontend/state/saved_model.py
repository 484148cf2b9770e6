"""`tf.saved_model.save` / `load`: functions as `df` text, StableHLO artifacts, safetensors.

A SavedModel folder holds
- `saved_model.json`: the manifest: the object tree (modules, containers, variables by
  checkpoint key, functions by id), each function's structured input signature, output
  structure and captures, and the signatures;
- `variables/variables.safetensors`: the variables, in checkpoint format (`tf.train.Checkpoint`
  restores it too);
- `functions/<id>.mlir`: each ConcreteFunction's df module before passes (printed text);
  `functions/<id>.stablehlo`: its StableHLO as a portable artifact when all its shapes are static
  (`@main(args..., variables...) -> (results..., new values of written variables)`);
  `functions/captures.safetensors`: constants the functions captured.

`load` reads JSON, safetensors and MLIR text only, so no code from the files runs. It parses
each df module, verifies it (the op registry re-infers every type), rebuilds the graph form
(`ir.exporter`), and wraps it in a ConcreteFunction bound to freshly restored Variables: the
graph executor, XLA (per concrete shape, so `None` dims stay polymorphic) and GradientTape
(which replays the graph op by op, as for any traced function) all work on it.
"""
from __future__ import annotations

import ctypes
import errno
import json
import os
import re
import shutil
import tempfile

import google_crc32c
import numpy as np

from ...ir import dtypes as D
from ...ir.errors import InvalidArgumentError, UnimplementedError
from ...runtime import safe_files, safetensors
from . import checkpoint, module as module_lib, saved_model_files as files
from ..function import compilation, trace_type
from .. import nest
from ..function.concrete_function import ConcreteFunction, specs_of
from ..function.function import Function
from ..function.function_call import match_spec
from ..function.func_graph import FuncGraph
from ..function.specs import TensorSpec
from ..eager.tensor import Tensor
from .variables import Variable

MANIFEST = files.MANIFEST
VARIABLES = "variables/variables" + checkpoint.SUFFIX
CAPTURES = "functions/captures.safetensors"


# --- JSON forms of trace types and output structures ---------------------------------------
def _key_to_json(key):
    if key[0] == trace_type.TENSOR:
        return {"tensor": [key[1].name, None if key[2] is None else list(key[2])]}
    if trace_type.is_container(key):
        kind = key[0]
        if isinstance(kind, tuple):
            return {"dict": [[k, _key_to_json(c)] for k, c in zip(kind[1], key[1])]}
        return {"list" if kind is list else "tuple": [_key_to_json(c) for c in key[1]]}
    if key[0] == trace_type.LITERAL and not isinstance(key[1], (bytes, tuple)):
        return {"py": key[1]}
    raise ValueError(f"saved_model.save: cannot save a function whose trace depends on "
                     f"{trace_type.describe(key)} (only tensors and plain Python constants)")


def _key_from_json(j):
    (tag, v), = j.items()
    if tag == "tensor":
        dtype, shape = v
        if shape is not None and not all(d is None or type(d) is int and d >= 0
                                         for d in shape):
            raise ValueError(f"bad tensor shape {shape!r}")
        return (trace_type.TENSOR, D.as_dtype(dtype), None if shape is None else tuple(shape))
    if tag == "dict":
        keys = tuple(k for k, _ in v)
        return ((dict, keys), tuple(_key_from_json(c) for _, c in v))
    if tag in ("list", "tuple"):
        return (list if tag == "list" else tuple, tuple(_key_from_json(c) for c in v))
    if tag == "py" and (v is None or isinstance(v, (bool, int, float, str))):
        return (trace_type.LITERAL, v)
    raise ValueError(f"bad trace type {j!r}")


def _structure_to_json(s):
    tag = s[0]
    if tag == "out":
        return {"out": s[1]}
    if tag == "py":
        if s[1] is not None:
            raise ValueError(f"saved_model.save: a function returns {s[1]!r}; only tensors, "
                             f"lists, tuples, dicts and None can be saved")
        return {"py": None}
    _, template, kind, items = s
    if type(template) in (list, tuple):
        return {type(template).__name__: [_structure_to_json(c) for c in items]}
    if type(template) is dict:
        by_key = dict(zip(sorted(template), items))  # children come in sorted key order
        return {"dict": [[k, _structure_to_json(by_key[k])] for k in template]}
    raise ValueError(f"saved_model.save: a function returns a {type(template).__name__}; only "
                     f"tensors, lists, tuples, dicts and None can be saved")


def _structure_from_json(j):
    (tag, v), = j.items()
    if tag == "out" and type(v) is int and v >= 0:
        return ("out", v)
    if tag == "py" and v is None:
        return ("py", None)
    if tag in ("list", "tuple"):
        items = [_structure_from_json(c) for c in v]
        return ("nest", [] if tag == "list" else (), nest.SEQUENCE, items)
    if tag == "dict":
        template = {k: None for k, _ in v}
        by_key = {k: _structure_from_json(c) for k, c in v}
        return ("nest", template, nest.MAPPING, [by_key[k] for k in sorted(template)])
    raise ValueError(f"bad output structure {j!r}")


# --- saving ----------------------------------------------------------------------------------
def _functions_of(obj) -> dict:
    """{attribute: Function} of an object: instance attributes and tf.function methods."""
    found = {k: v for k, v in vars(obj).items() if isinstance(v, Function)}
    for name in dir(type(obj)):
        if isinstance(getattr(type(obj), name, None), Function):
            found[name] = getattr(obj, name)
    return found


def _concretes(fn: Function) -> list:
    if fn.input_signature is not None:
        fn.get_concrete_function()
    return fn._list_all_concrete_functions()


class _Saver:
    def __init__(self, root, export_dir, debug_info):
        self.dir = export_dir
        self.debug_info = debug_info
        self.variables, _ = checkpoint._graph_of(root)
        self.key_of = {id(v): k for k, v in self.variables.items()}
        self.functions: dict = {}        # fid -> manifest entry
        self.fid_of: dict = {}           # id(ConcreteFunction) -> fid
        self.constants: dict = {}        # tensor name -> ndarray
        self.checksums: dict = {}        # file -> CRC32C (a safetensors file's: its header's)

    def write(self, rel, data: bytes):
        _write(self.dir, rel, data)
        self.checksums[rel] = google_crc32c.value(data)

    def tree(self, obj, seen):
        if isinstance(obj, Variable):
            return {"variable": self.key_of[id(obj)], "trainable": obj.trainable,
                    "name": obj.name}
        if isinstance(obj, dict):
            return {"dict": [[str(k), self.tree(v, seen)] for k, v in checkpoint._children(obj)
                             if checkpoint._is_trackable(v)]}
        if isinstance(obj, (list, tuple)):
            return {"list" if isinstance(obj, list) else "tuple":
                    [self.tree(v, seen) if checkpoint._is_trackable(v) else None for v in obj]}
        if id(obj) in seen:   # an object met before (a cycle, or shared): saved once
            return None
        seen.add(id(obj))
        children = {k: self.tree(v, seen) for k, v in checkpoint._children(obj)
                    if checkpoint._is_trackable(v)}
        functions = {k: [self.concrete(cf) for cf in _concretes(f)]
                     for k, f in _functions_of(obj).items()}
        return {"object": {k: v for k, v in children.items() if v is not None},
                "functions": {k: v for k, v in functions.items() if v}}

    def concrete(self, cf: ConcreteFunction) -> str:
        fid = self.fid_of.get(id(cf))
        if fid is not None:
            return fid
        fid = self.fid_of[id(cf)] = f"fn_{len(self.fid_of)}"
        from ...ir.printing import print_module
        captures = []
        for i, c in enumerate(cf.captures):
            if isinstance(c, Variable):
                key = self.key_of.get(id(c))
                if key is None:   # TF 2.21's class and first sentence
                    raise AssertionError(
                        f"Tried to export a function which references an 'untracked' "
                        f"resource. TensorFlow objects (e.g. tf.Variable) captured by functions "
                        f"must be 'tracked' by assigning them to an attribute of a tracked "
                        f"object or assigned to an attribute of the main object directly. "
                        f"Function name = {cf.name}, Variable = {c.name}")
                captures.append({"variable": key})
            else:
                name = f"{fid}/{i}"
                self.constants[name] = np.asarray(c._value)
                captures.append({"constant": name})
        self.write(f"functions/{fid}.mlir",
                   print_module(cf.dataflow_module(), debuginfo=self.debug_info).encode())
        self.functions[fid] = {
            "name": cf.name, "arg_names": list(cf.arg_names),
            "input_key": _key_to_json(cf.trace_key), "outputs": _structure_to_json(cf.structure),
            "captures": captures, "jit_compile": cf.jit_compile,
            "stablehlo": self.artifact(cf, fid)}
        return fid

    def artifact(self, cf, fid):
        """The portable StableHLO of a function whose shapes are all static and which XLA can
        compile, else None (string ops, `py_function`: the df text still runs them)."""
        from ...lowering.stablehlo import lower_module, portable
        from ...ir.importer import import_graph
        from ...ir.specialize import specialize
        types = [p.out_types[0] for p in cf.graph.inputs]
        if not all(getattr(t, "value", t).shape is not None and
                   None not in getattr(t, "value", t).shape for t in types):
            return None
        module = compilation.optimize(cf.program,
                                      import_graph(specialize(cf.graph, types), cf.name), {})
        try:
            lowered = lower_module(module, cf.name, donate=False)
        except (InvalidArgumentError, UnimplementedError):   # XLA refuses: no artifact
            return None
        self.write(f"functions/{fid}.stablehlo", portable.serialize(lowered.module, self.debug_info))
        return {"file": f"functions/{fid}.stablehlo", "version": portable.target_version(),
                "num_results": lowered.num_results, "written_args": lowered.written_args,
                # trailing uint32[4] inputs (key, first block) of its stateful random ops
                "host_inputs": len(lowered.host_inputs)}


def _write(folder, rel, data: bytes):
    path = os.path.join(folder, rel)
    _makedirs(os.path.dirname(path))
    safe_files.atomic_write(path, data)


def _makedirs(folder):
    if not os.path.isdir(folder):
        os.makedirs(folder, mode=safe_files.dir_mode())


def _signature_inputs(cf, fn):
    """Keyword names of a signature's flat inputs: the TensorSpec names, else argument
    names (`x`, nested `x_0`), as TF."""
    derived = nest.flatten(list(specs_of(cf.trace_key, list(cf.arg_names))))
    given = nest.flatten(list(fn.input_signature)) if fn is not None and \
        fn.input_signature is not None else [None] * len(derived)
    return [(g.name if isinstance(g, TensorSpec) and g.name else d.name)
            for g, d in zip(given, derived)]


def _signature_entries(saver, signatures, functions):
    if signatures is None:
        # TF: with exactly one tf.function found on the object, it is the default signature.
        candidates = [f for f in functions.values() if f.input_signature is not None]
        if len(functions) != 1 or not candidates:
            return {}
        signatures = candidates[0]
    if not isinstance(signatures, dict):
        signatures = {"serving_default": signatures}
    out = {}
    for name, sig in signatures.items():
        fn = sig if isinstance(sig, Function) else None
        if fn is not None:
            if fn.input_signature is None:
                raise ValueError(f"saved_model.save: signature {name!r} is a tf.function "
                                 f"without an input_signature; pass a ConcreteFunction")
            sig = fn.get_concrete_function()
        if not isinstance(sig, ConcreteFunction):
            raise ValueError(f"saved_model.save: signature {name!r} must be a tf.function with "
                             f"an input_signature or a ConcreteFunction, got {sig!r}")
        outs = sig.structure
        if outs[0] == "nest" and outs[2] == nest.MAPPING:
            keys = sorted(outs[1])  # nest's flatten order
        else:
            keys = [f"output_{i}" for i in range(len(nest.flatten(sig.structured_outputs)))]
        out[name] = {"function": saver.concrete(sig), "inputs": _signature_inputs(sig, fn),
                     "outputs": keys}
    return out


class SaveOptions:
    """TF's `tf.saved_model.SaveOptions`: `save_debug_info=True` keeps the source locations
    (`loc(...)`, absolute paths of the saving machine) in the saved df text."""

    def __init__(self, save_debug_info=False):
        self.save_debug_info = bool(save_debug_info)


_OWN_ENTRIES = {MANIFEST, "variables", "functions"}


def _check_replaceable(export_dir):
    """A save replaces the whole folder, so it may hold only a SavedModel's own entries."""
    if not os.path.lexists(export_dir):
        return
    if not os.path.isdir(export_dir) or os.path.islink(export_dir):
        raise ValueError(f"saved_model.save: {export_dir} exists and is not a directory")
    foreign = sorted(set(os.listdir(export_dir)) - _OWN_ENTRIES)
    if foreign:
        raise ValueError(f"saved_model.save: {export_dir} holds files that are not part of a "
                         f"SavedModel ({', '.join(foreign[:5])}); a save replaces the whole "
                         f"folder, so save into an empty or new one")


_RENAME_EXCHANGE = 2


def _exchange(a, b) -> bool:
    """Swap two paths atomically (Linux renameat2); False where the system cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    at_cwd = -100
    if renameat2(at_cwd, os.fsencode(a), at_cwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):   # not supported here
        return False
    raise OSError(err, os.strerror(err), b)


def _swap_in(new, export_dir):
    """Make the complete folder `new` the SavedModel at `export_dir` in one step, so a kill
    leaves the old model or the new one; the old one is deleted after."""
    parent = os.path.dirname(os.path.abspath(export_dir))
    empty = os.path.isdir(export_dir) and not os.listdir(export_dir)
    if not os.path.lexists(export_dir) or empty:
        os.rename(new, export_dir)          # a rename onto an empty folder replaces it
    elif _exchange(new, export_dir):
        shutil.rmtree(new)                  # `new` now holds the old model
    else:   # no atomic swap: a kill between these renames leaves the old model aside
        # not a temp name: if a kill lands between the renames, the cleanup keeps it
        old = new.removesuffix(".tmp") + ".old"
        os.rename(export_dir, old)
        os.rename(new, export_dir)
        shutil.rmtree(old)
    safe_files.fsync_dir(parent)


def save(obj, export_dir, signatures=None, options=None):
    """TF's `tf.saved_model.save(obj, export_dir, signatures=None, options=None)`. The model
    is written into a fresh temporary folder next to `export_dir` and swapped in whole; a
    failed save leaves nothing behind."""
    export_dir = os.path.normpath(os.fspath(export_dir))
    parent = os.path.dirname(os.path.abspath(export_dir))
    _makedirs(parent)
    _check_replaceable(export_dir)
    safe_files.remove_stale_temps(parent, (os.path.basename(export_dir) + ".",))
    staging = tempfile.mkdtemp(dir=parent, prefix=safe_files.temp_prefix(export_dir),
                               suffix=".tmp")
    try:
        os.chmod(staging, safe_files.dir_mode())
        _write_model(obj, staging, signatures, options or SaveOptions())
        _swap_in(staging, export_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _write_model(obj, folder, signatures, options):
    saver = _Saver(obj, folder, options.save_debug_info)
    tree = saver.tree(obj, set())
    sigs = _signature_entries(saver, signatures, _functions_of(obj))
    for sub in ("variables", "functions"):
        _makedirs(os.path.join(folder, sub))
    saver.checksums[VARIABLES] = checkpoint.write_values(
        os.path.join(folder, VARIABLES), saver.variables, {"saved_model": True})
    saver.checksums[CAPTURES] = safetensors.write(os.path.join(folder, CAPTURES),
                                                  saver.constants)
    manifest = {"format": f"{files.FORMAT}{files.VERSION}", "root": tree,
                "functions": saver.functions, "signatures": sigs,
                "checksums": saver.checksums}
    manifest["checksum"] = files.manifest_checksum(manifest)
    _write(folder, MANIFEST, json.dumps(manifest, indent=1).encode())
    for sub in ("variables", "functions", ""):
        safe_files.fsync_dir(os.path.join(folder, sub))


# --- loading ----------------------------------------------------------------------------------
class RestoredFunction:
    """A tf.function as loaded: its saved ConcreteFunctions, picked by argument types."""

    def __init__(self, name, concretes, arg_names):
        self._name = name
        self.concrete_functions = concretes
        self._arg_names = arg_names
        self._specs = [(cf, cf.structured_input_signature[0]) for cf in concretes]

    def __call__(self, *args, **kwargs):
        if kwargs:
            args = _bind(self._name, self._arg_names, args, kwargs)
        errors = []
        for cf, specs in self._specs:
            if len(specs) != len(args):
                errors.append(f"{len(specs)} arguments expected, got {len(args)}")
                continue
            flat = []
            try:
                for name, spec, value in zip(cf.arg_names, specs, args):
                    _match_value(self._name, name, spec, value, flat)
            except (TypeError, ValueError) as e:
                errors.append(str(e))
                continue
            return cf.call_flat(flat)
        if len(errors) == 1 and errors[0].startswith("Binding inputs to tf.function failed"):
            raise TypeError(errors[0])   # one trace's specs refuse a value: TF's bind error
        # another structure: TF's class and text, then why each saved trace refused
        raise ValueError(f"Could not find matching concrete function to call loaded from the "
                         f"SavedModel. Got:\n  Positional arguments ({len(args)} total): "
                         f"{list(args)!r}\n\n Expected these arguments to match one of the "
                         f"following {len(self._specs)} option(s): {'; '.join(errors)}")

    def get_concrete_function(self, *args):
        return self.concrete_functions[0] if not args else next(
            cf for cf in self.concrete_functions
            if trace_type.accepts(cf.trace_key, trace_type.spec_key(tuple(args))))

    def __repr__(self):
        return f"<RestoredFunction {self._name}>"


def _match_value(fname, argname, spec, value, flat):
    if isinstance(spec, (TensorSpec, list, tuple, dict)):
        match_spec(fname, argname, spec, value, flat)
    elif spec != value:   # a Python constant the function was traced with
        raise ValueError(f"{fname}(): argument '{argname}' was saved for the value {spec!r}, "
                         f"got {value!r}")


def _bind(fname, names, args, kwargs):
    values = list(args) + [None] * (len(names) - len(args))
    for k, v in kwargs.items():
        if k not in names or names.index(k) < len(args):
            raise TypeError(f"{fname}() got an unexpected keyword argument '{k}'")
        values[names.index(k)] = v
    missing = [n for n, v in zip(names, values) if v is None and n not in kwargs]
    if missing:
        raise TypeError(f"{fname}() missing required arguments: {', '.join(missing)}")
    return tuple(values)


class SignatureFunction:
    """A signature: keyword (or positional) inputs, a dict of outputs, as TF."""

    def __init__(self, name, cf, inputs, outputs):
        self._name = name
        self._cf = cf
        self._inputs = inputs
        self._outputs = outputs
        self._specs = nest.flatten(list(cf.structured_input_signature[0]))

    def __call__(self, *args, **kwargs):
        values = _bind(self._name, self._inputs, args, kwargs)
        flat = []
        for name, spec, value in zip(self._inputs, self._specs, values):
            match_spec(self._name, name, spec, value, flat)
        out = self._cf.call_flat(flat)
        if isinstance(out, dict):
            return dict(out)
        return dict(zip(self._outputs, nest.flatten(out)))

    @property
    def structured_input_signature(self):
        return ((), {n: TensorSpec(s.shape, s.dtype, n)
                     for n, s in zip(self._inputs, self._specs)})

    @property
    def structured_outputs(self):
        return dict(zip(self._outputs, nest.flatten(self._cf.structured_outputs)))

    @property
    def variables(self):
        return self._cf.variables

    def __repr__(self):
        return f"<SignatureFunction {self._name}({', '.join(self._inputs)})>"


def _saved_or_computed(name):
    """Module's computed property `name`, unless the saved object had an attribute of that
    name (Keras's export saves `variables` lists): a saved one wins, as on TF's loaded
    object, which has no such properties."""
    computed, key = getattr(module_lib.Module, name), f"_saved_attribute_{name}"

    def get(self):
        return self.__dict__[key] if key in self.__dict__ else computed.fget(self)

    def set_(self, value):
        self.__dict__[key] = value
    return property(get, set_)


class _UserObject(module_lib.Module):
    """A loaded object (TF's class name): its tracked attributes, functions and, on the root,
    signatures."""

    variables = _saved_or_computed("variables")
    trainable_variables = _saved_or_computed("trainable_variables")
    non_trainable_variables = _saved_or_computed("non_trainable_variables")
    submodules = _saved_or_computed("submodules")

    def __init__(self):
        super().__init__(name="user_object")

    def __call__(self, *args, **kwargs):   # Python looks `__call__` up on the class
        fn = vars(self).get("__call__")
        if fn is None:
            raise TypeError("'_UserObject' object is not callable")
        return fn(*args, **kwargs)


class _Loader:
    def __init__(self, export_dir, jit_compile):
        self.dir = export_dir
        self.jit_compile = jit_compile
        self.manifest, version = files.read_manifest(export_dir)
        self.files = files.Files(export_dir, self.manifest, version)
        self.values = self.files.tensors(VARIABLES, checkpoint.read_file)
        self.constants = self.files.tensors(CAPTURES, safetensors.read)
        self.variables: dict = {}      # checkpoint key -> Variable
        self.functions: dict = {}      # fid -> ConcreteFunction

    def variable(self, entry):
        key = entry["variable"]
        var = self.variables.get(key)
        if var is None:
            if key not in self.values:
                _corrupt(self.dir, f"the variable {key} is missing from {VARIABLES}")
            name = str(entry.get("name", "Variable:0")).rpartition(":")[0] or "Variable"
            var = self.variables[key] = Variable(self.values[key],
                                                 trainable=bool(entry.get("trainable", True)),
                                                 name=name)
        return var

    def build(self, entry):
        if entry is None:   # a non-trackable list item, or an object saved elsewhere
            return None
        if not isinstance(entry, dict) or len(entry) < 1:
            _corrupt(self.dir, f"bad object entry {entry!r}")
        if "variable" in entry:
            return self.variable(entry)
        if "dict" in entry:
            return {k: self.build(v) for k, v in entry["dict"]}
        if "list" in entry or "tuple" in entry:
            items = [self.build(v) for v in entry.get("list", entry.get("tuple"))]
            return items if "list" in entry else tuple(items)
        obj = _UserObject()
        for name, child in entry["object"].items():
            setattr(obj, name, self.build(child))
        for name, fids in entry.get("functions", {}).items():
            cfs = [self.function(f) for f in fids]
            setattr(obj, name, RestoredFunction(name, cfs, list(cfs[0].arg_names)))
        return obj

    def function(self, fid):
        cf = self.functions.get(fid)
        if cf is not None:
            return cf
        from ...ir.exporter import export_graph
        from ...ir.printing import parse_module
        entry = self.manifest["functions"].get(fid) if isinstance(fid, str) else None
        if entry is None or not re.fullmatch(r"fn_[0-9]+", fid):   # names a file: no paths
            _corrupt(self.dir, f"unknown function {fid!r}")
        rel = f"functions/{fid}.mlir"
        text = self.files.read(rel)
        try:
            module = parse_module(text.decode("utf-8"))
            module.verify()
        except Exception as e:   # parse and verify errors of a tampered or foreign file
            _corrupt(self.dir, f"{rel} is not a valid df function: {e}")
        _refuse_python_calls(self.dir, rel, module)
        try:
            graph = export_graph(module, entry["name"], new_graph=FuncGraph)
        except Exception as e:
            _corrupt(self.dir, f"{rel} is not a valid df function: {e}")
        key = _key_from_json(entry["input_key"])
        structure = _structure_from_json(entry["outputs"])
        self.check_artifact(fid, entry.get("stablehlo"))
        captures = [self.variable(c) if "variable" in c else self.constant(c["constant"])
                    for c in entry["captures"]]
        flat_args = graph.inputs[:len(graph.inputs) - len(captures)]
        specs = nest.flatten(list(specs_of(key, entry["arg_names"])))
        if len(flat_args) != len(specs):
            _corrupt(self.dir, f"{rel} takes {len(graph.inputs)} arguments, which does not "
                               f"match its signature and captures")
        for p, spec in zip(flat_args, specs):
            have = getattr(p.out_types[0], "value", p.out_types[0])
            if have.dtype is not spec.dtype or (None if have.shape is None else list(
                    have.shape)) != spec.shape.as_list():
                _corrupt(self.dir, f"{rel} takes {have} for {p.name}, the manifest says "
                                   f"{spec.dtype.name}{spec.shape}")
        for p, c in zip(graph.inputs[len(flat_args):], captures):
            want = getattr(p.out_types[0], "value", p.out_types[0])
            if c.dtype is not want.dtype or not c.shape.is_compatible_with(want.shape):
                _corrupt(self.dir, f"{rel} expects {want} for {p.name}, the "
                                   f"saved value is {c.dtype.name}{c.shape}")
            p.attrs["capture"] = c
        outputs = _output_indices(structure)
        if any(i >= len(graph.outputs) for i in outputs):
            _corrupt(self.dir, f"the manifest names output {max(outputs)} of {rel}, which has "
                               f"{len(graph.outputs)}")
        jit = bool(entry["jit_compile"]) if self.jit_compile is None else self.jit_compile
        graph.jit_compile = jit
        cf = ConcreteFunction(graph, structure, None, key, None, arg_names=entry["arg_names"],
                              jit_compile=jit)
        self.functions[fid] = cf
        return cf

    def check_artifact(self, fid, entry):
        """A function's StableHLO artifact, if it has one, must be intact, readable by this
        jaxlib, and of a version in the range it reads."""
        if entry is None:
            return
        from ...lowering.stablehlo import portable
        version = entry["version"]
        oldest, newest = portable.supported_versions()
        if not isinstance(version, str) or not re.fullmatch(r"[0-9]{1,4}(\.[0-9]{1,4}){2}",
                                                            version):
            _corrupt(self.dir, f"{fid}'s StableHLO artifact has a malformed version "
                               f"{version!r}")
        numbers = [tuple(map(int, v.split("."))) for v in (oldest, version, newest)]
        if not numbers[0] <= numbers[1] <= numbers[2]:
            raise UnimplementedError(None, None, f"SavedModel at {self.dir}: {fid}'s StableHLO "
                                                 f"artifact has version {version}; this jaxlib "
                                                 f"reads versions {oldest} to {newest}")
        try:
            portable.deserialize(self.files.read(entry["file"]))
        except ValueError as e:
            _corrupt(self.dir, f"{entry['file']} is {e}")

    def constant(self, name):
        if name not in self.constants:
            _corrupt(self.dir, f"the captured constant {name} is missing from {CAPTURES}")
        value = self.constants[name]
        return Tensor._wrap(value, D.from_numpy(value.dtype))


_corrupt = files.corrupt
_PYTHON_CALLS = ("df.py_function", "df.numpy_function")


def _refuse_python_calls(folder, rel, module):
    """A SavedModel cannot restore a Python function (TF fails when the function runs, with
    this class and text), and its token would resolve to whatever the loading process
    registered under it: refused on load."""
    for op in module.walk():
        if op.name in _PYTHON_CALLS:
            token = getattr(op.attributes.get("func"), "data", "?")
            raise InvalidArgumentError(
                None, None, f"Could not find callback with key={token} in the registry: "
                            f"SavedModel at {folder}: {rel} calls a Python function "
                            f"({op.name.removeprefix('df.')}), which a SavedModel cannot "
                            f"restore")


def _output_indices(structure) -> list:
    if structure[0] == "out":
        return [structure[1]]
    if structure[0] == "nest":
        return [i for child in structure[3] for i in _output_indices(child)]
    return []


def load(export_dir, tags=None, options=None, jit_compile=None):
    """TF's `tf.saved_model.load(export_dir)`. Extension: `jit_compile=True/False` runs every
    restored function under XLA / the graph executor (default: as each was saved)."""
    loader = _Loader(os.fspath(export_dir), jit_compile)
    try:
        root = loader.build(loader.manifest["root"])
        signatures = {}
        for name, s in loader.manifest["signatures"].items():
            signatures[name] = SignatureFunction(name, loader.function(s["function"]),
                                                 list(s["inputs"]), list(s["outputs"]))
    except (AttributeError, KeyError, TypeError, ValueError, IndexError, RecursionError) as e:
        _corrupt(loader.dir, f"{MANIFEST} is malformed ({type(e).__name__}: {e})")
    root.signatures = signatures
    return root
