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

import json
import os
import re

import numpy as np

from ..ir import dtypes as D
from ..ir.errors import DataLossError
from ..runtime import safetensors
from . import checkpoint, module as module_lib, nest, trace_type
from .concrete_function import ConcreteFunction, specs_of
from .function import Function
from .function_call import match_spec
from .func_graph import FuncGraph
from .specs import TensorSpec
from .tensor import Tensor
from .variables import Variable

MANIFEST = "saved_model.json"
VARIABLES = os.path.join("variables", "variables" + checkpoint.SUFFIX)
CAPTURES = os.path.join("functions", "captures.safetensors")
_FORMAT = "flowjit.saved_model/1"


# --- JSON forms of trace types and output structures ---------------------------------------
def _key_to_json(key):
    if key[0] == trace_type.TENSOR:
        return {"tensor": [key[1].name, None if key[2] is None else list(key[2])]}
    if trace_type._is_container(key):
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
        return (trace_type.TENSOR, D.as_dtype(v[0]), None if v[1] is None else tuple(v[1]))
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
    if tag == "out" and isinstance(v, int):
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
    return [cf for _, cf in fn._traces]


class _Saver:
    def __init__(self, root, export_dir):
        self.dir = export_dir
        self.variables, _ = checkpoint._graph_of(root)
        self.key_of = {id(v): k for k, v in self.variables.items()}
        self.functions: dict = {}        # fid -> manifest entry
        self.fid_of: dict = {}           # id(ConcreteFunction) -> fid
        self.constants: dict = {}        # tensor name -> ndarray

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
        from ..ir.printing import print_module
        captures = []
        for i, c in enumerate(cf._captures):
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
        _write(self.dir, f"functions/{fid}.mlir", print_module(cf.dataflow_module()).encode())
        self.functions[fid] = {
            "name": cf.name, "arg_names": list(cf._arg_names),
            "input_key": _key_to_json(cf._key), "outputs": _structure_to_json(cf._structure),
            "captures": captures, "jit_compile": cf._jit,
            "stablehlo": self.artifact(cf, fid)}
        return fid

    def artifact(self, cf, fid):
        """The portable StableHLO of a function whose shapes are all static, else None."""
        from ..lowering.stablehlo import lower_module, portable
        from ..ir.importer import import_graph
        from ..ir.specialize import specialize
        types = [p.out_types[0] for p in cf.graph.inputs]
        if not all(getattr(t, "value", t).shape is not None and
                   None not in getattr(t, "value", t).shape for t in types):
            return None
        module = cf._optimize(import_graph(specialize(cf.graph, types), cf.name), {})
        lowered = lower_module(module, cf.name, donate=False)
        _write(self.dir, f"functions/{fid}.stablehlo", portable.serialize(lowered.module))
        return {"file": f"functions/{fid}.stablehlo", "version": portable.target_version(),
                "num_results": lowered.num_results, "written_args": lowered.written_args,
                # trailing uint32[4] inputs (key, first block) of its stateful random ops
                "host_inputs": len(lowered.host_inputs)}


def _write(folder, rel, data: bytes):
    path = os.path.join(folder, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    safetensors.atomic_write(path, data)


def _signature_inputs(cf, fn):
    """Keyword names of a signature's flat inputs: the TensorSpec names, else argument
    names (`x`, nested `x_0`), as TF."""
    derived = nest.flatten(list(specs_of(cf._key, list(cf._arg_names))))
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
        outs = sig._structure
        if outs[0] == "nest" and outs[2] == nest.MAPPING:
            keys = sorted(outs[1])  # nest's flatten order
        else:
            keys = [f"output_{i}" for i in range(len(nest.flatten(sig.structured_outputs)))]
        out[name] = {"function": saver.concrete(sig), "inputs": _signature_inputs(sig, fn),
                     "outputs": keys}
    return out


def save(obj, export_dir, signatures=None, options=None):
    """TF's `tf.saved_model.save(obj, export_dir, signatures=None)`."""
    export_dir = os.fspath(export_dir)
    os.makedirs(export_dir, exist_ok=True)
    saver = _Saver(obj, export_dir)
    tree = saver.tree(obj, set())
    sigs = _signature_entries(saver, signatures, _functions_of(obj))
    os.makedirs(os.path.join(export_dir, "variables"), exist_ok=True)
    checkpoint.write_values(os.path.join(export_dir, VARIABLES), saver.variables,
                            {"saved_model": True})
    _write(export_dir, CAPTURES, safetensors.dumps(saver.constants))
    manifest = {"format": _FORMAT, "root": tree, "functions": saver.functions,
                "signatures": sigs}
    _write(export_dir, MANIFEST, json.dumps(manifest, indent=1).encode())


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
                for name, spec, value in zip(cf._arg_names, specs, args):
                    _match_value(self._name, name, spec, value, flat)
            except (TypeError, ValueError) as e:
                errors.append(str(e))
                continue
            return cf._call_flat(flat)
        raise TypeError(f"Binding inputs to the restored function {self._name} failed: no "
                        f"saved concrete function accepts these arguments ("
                        f"{'; '.join(errors)})")

    def get_concrete_function(self, *args):
        return self.concrete_functions[0] if not args else next(
            cf for cf in self.concrete_functions
            if trace_type.accepts(cf._key, trace_type.spec_key(tuple(args))))

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
        out = self._cf._call_flat(flat)
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


class _UserObject(module_lib.Module):
    """A loaded object (TF's class name): its tracked attributes, functions and, on the root,
    signatures."""

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
        self.manifest = _read_json(export_dir)
        values = checkpoint.read_values(os.path.join(export_dir, VARIABLES))
        self.values = values
        self.constants = _read_tensors(export_dir, CAPTURES)
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
            setattr(obj, name, RestoredFunction(name, cfs, list(cfs[0]._arg_names)))
        return obj

    def function(self, fid):
        cf = self.functions.get(fid)
        if cf is not None:
            return cf
        from ..ir.exporter import export_graph
        from ..ir.printing import parse_module
        entry = self.manifest["functions"].get(fid)
        if entry is None or not re.fullmatch(r"fn_[0-9]+", fid):   # names a file: no paths
            _corrupt(self.dir, f"unknown function {fid!r}")
        path = os.path.join(self.dir, "functions", f"{fid}.mlir")
        try:
            with open(path, encoding="utf-8") as f:
                module = parse_module(f.read())
            module.verify()
            graph = export_graph(module, entry["name"], new_graph=FuncGraph)
            key = _key_from_json(entry["input_key"])
            structure = _structure_from_json(entry["outputs"])
        except OSError as e:
            raise OSError(f"SavedModel at {self.dir}: cannot read {path}: {e}") from None
        except Exception as e:   # parse and verify errors of a tampered or foreign file
            _corrupt(self.dir, f"functions/{fid}.mlir is not a valid df function: {e}")
        captures = [self.variable(c) if "variable" in c else self.constant(c["constant"])
                    for c in entry["captures"]]
        flat_args = graph.inputs[:len(graph.inputs) - len(captures)]
        if len(flat_args) != len(nest.flatten(list(specs_of(key, entry["arg_names"])))):
            _corrupt(self.dir, f"functions/{fid}.mlir takes {len(graph.inputs)} arguments, "
                               f"which does not match its signature and captures")
        for p, c in zip(graph.inputs[len(flat_args):], captures):
            want = getattr(p.out_types[0], "value", p.out_types[0])
            if c.dtype is not want.dtype or not c.shape.is_compatible_with(want.shape):
                _corrupt(self.dir, f"functions/{fid}.mlir expects {want} for {p.name}, the "
                                   f"saved value is {c.dtype.name}{c.shape}")
            p.attrs["capture"] = c
        jit = bool(entry["jit_compile"]) if self.jit_compile is None else self.jit_compile
        graph.jit_compile = jit
        cf = ConcreteFunction(graph, structure, None, key, None)
        cf._arg_names = list(entry["arg_names"])
        cf._jit = jit
        self.functions[fid] = cf
        return cf

    def constant(self, name):
        if name not in self.constants:
            _corrupt(self.dir, f"the captured constant {name} is missing from {CAPTURES}")
        value = self.constants[name]
        return Tensor._wrap(value, D.from_numpy(value.dtype))


def _corrupt(folder, why):
    raise DataLossError(None, None, f"SavedModel at {folder} is damaged: {why}")


def _read_json(folder):
    path = os.path.join(folder, MANIFEST)
    if not os.path.isfile(path):
        raise OSError(f"SavedModel file does not exist at: {path}")
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        _corrupt(folder, f"{MANIFEST} is not JSON ({e})")
    if not isinstance(manifest, dict) or manifest.get("format") != _FORMAT:
        _corrupt(folder, f"{MANIFEST} is not a flowjit SavedModel manifest")
    return manifest


def _read_tensors(folder, rel):
    try:
        return safetensors.read(os.path.join(folder, rel))[0]
    except safetensors.FormatError as e:
        _corrupt(folder, str(e))


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
    except (AttributeError, KeyError, TypeError, ValueError) as e:
        _corrupt(loader.dir, f"{MANIFEST} is malformed ({type(e).__name__}: {e})")
    root.signatures = signatures
    return root
