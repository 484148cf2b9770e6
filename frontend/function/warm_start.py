"""Warm start across processes: an opt-in persistent cache of compiled `jit_compile=True`
functions (`config.experimental.enable_compilation_cache(dir)` or
`FLOWJIT_COMPILATION_CACHE=dir`).

An entry is keyed by content: the function's source and, recursively, the functions, modules
and Python values its code names (globals, closure cells, defaults), the call's trace type,
flowjit's and jaxlib's versions, the lowering-rule generation, the pass configuration and
the device. A hit skips tracing, import, passes, lowering and XLA's compile: the call runs the
stored executable. So trace-time Python side effects (a Python `print` in the body) do not
run on a hit. Objects the code names (a model, a tf.Module) contribute their class's methods
and their attributes; variables their dtype and shape, and the path the code reaches them by
(`global model`, `attr dense`, `attr kernel`): a hit finds them again by those paths and the
stored executable reads and updates them as a traced call does. A function whose code names
anything else (a tensor, an object of an installed library's class), a trace capturing
anything but those variables, random ops, prints or asserts is compiled as usual and not
stored. A trace with `None` dimensions (an `input_signature`) stores an entry per concrete
argument shapes it is compiled for; a call with shapes not stored traces (the stored module
is not re-specialised: that would be lowering and XLA's compile, the cost a hit saves).

An entry is a folder `<key>/` of a JSON manifest, the optimized df module's text, the
StableHLO portable artifact and XLA's serialized executable, each file's SHA-256 in the
manifest. A load reads regular files only, each bounded, inside the entry's folder, owned by
this user and not writable by others; a missing, corrupted or foreign entry (another key,
format or device) is a miss with a warning, never an error. XLA's executables are machine
code: the cache folder must be trusted like the program's own files.
"""
from __future__ import annotations

import builtins
import hashlib
import inspect
import json
import logging
import os
import sys
import types
import weakref

from ...ir import dtypes as D
from ...runtime import safe_files
from ...runtime.resources import ResourceHandle
from ...ir.errors import DataLossError
from . import compilation, trace_type
from .context import context

log = logging.getLogger("flowjit")
_CTX = context()

FORMAT = 2
MANIFEST = "manifest.json"
_LIMITS = {MANIFEST: 1 << 20, "optimized.mlir": 1 << 30, "stablehlo.bc": 1 << 30,
           "executable.bin": 1 << 31}
_MAX_DEPTH = 8            # how deep the fingerprint follows functions named by functions
_DIR = [os.environ.get("FLOWJIT_COMPILATION_CACHE") or None]
_PENDING: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()   # trace -> key to store


def enable_compilation_cache(path: str):
    """Store compiled `jit_compile=True` functions under `path` and start later processes
    from them (see this module's doc)."""
    os.makedirs(path, mode=safe_files.dir_mode(), exist_ok=True)
    _DIR[0] = os.fspath(path)


def disable_compilation_cache():
    _DIR[0] = None


def compilation_cache_dir():
    return _DIR[0]


class _Uncacheable(Exception):
    """The function's code names something whose content the key cannot capture."""


# --- the key ---------------------------------------------------------------------------------
_LITERALS = (type(None), bool, int, float, complex, str, bytes)
_MAX_ITEMS = 64           # longer containers are not walked (uncacheable)


class _Walk:
    """The key's material for one function: what its code names, recursively. Variables
    contribute their dtype and shape and are remembered by the path the code reaches them
    through (`global model`, `attr dense`, `attr kernel`), which a hit resolves again."""

    def __init__(self):
        self.seen: set = set()           # functions, and ids of objects and variables
        self.variables: dict = {}        # path (tuple of steps) -> ResourceHandle

    def value(self, value, depth: int, path: tuple):
        """What a value named by the function's code contributes to the key."""
        if isinstance(value, _LITERALS):
            return [type(value).__name__, repr(value)]
        if isinstance(value, (tuple, list, frozenset)) and len(value) <= _MAX_ITEMS:
            return [type(value).__name__, [self.value(v, depth, path + (f"item {i}",))
                                           for i, v in enumerate(value)]]
        if type(value) is dict and len(value) <= _MAX_ITEMS and \
                all(type(k) is str for k in value):
            return ["dict", {k: self.value(v, depth, path + (f"key {k}",))
                             for k, v in sorted(value.items())}]
        if isinstance(value, types.ModuleType):
            return ["module", value.__name__]
        if isinstance(value, D.DType):
            return ["dtype", value.name]
        if isinstance(value, types.FunctionType):
            return ["function", self.function(value, depth + 1, path)]
        if isinstance(value, types.MethodType) and isinstance(value.__func__, types.FunctionType):
            return ["method", self.function(value.__func__, depth + 1, path + ("func",)),
                    self.value(value.__self__, depth + 1, path + ("self",))]
        python_function = getattr(value, "python_function", None)
        if isinstance(python_function, types.FunctionType):   # a flowjit Function
            return ["Function", getattr(value, "jit_compile", None),
                    self.function(python_function, depth + 1, path)]
        if isinstance(value, (type, types.BuiltinFunctionType)):
            return ["named", getattr(value, "__module__", None), value.__qualname__]
        handle = getattr(value, "_handle", None)
        if type(handle) is ResourceHandle:
            return self.variable(value, handle, path)
        if type(getattr(value, "__dict__", None)) is dict and \
                _origin(type(value)) in ("user", "flowjit"):
            return self.instance(value, depth + 1, path)
        raise _Uncacheable(f"{type(value).__name__} value")

    def variable(self, variable, handle, path):
        shape = variable.shape
        if not shape.is_fully_defined():
            raise _Uncacheable("a variable with None dims")
        if id(handle) in self.seen:
            return ["variable", "again"]
        self.seen.add(id(handle))
        self.variables[path] = handle
        return ["variable", variable.dtype.name, list(shape.as_list())]

    def instance(self, obj, depth: int, path: tuple):
        """A plain object (a model, a tf.Module): its class's methods (flowjit's are covered by
        its version) and its attributes."""
        if depth > _MAX_DEPTH:
            raise _Uncacheable("objects nested too deep")
        if id(obj) in self.seen:
            return ["recursive", type(obj).__qualname__]
        self.seen.add(id(obj))
        methods = {}
        for cls in (c for c in type(obj).__mro__ if _origin(c) == "user"):
            for name, member in sorted(vars(cls).items()):
                member = getattr(member, "fget", member)     # a property's getter
                if isinstance(member, types.FunctionType) and name not in methods:
                    methods[name] = self.function(member, depth + 1, path + (f"class {name}",))
        attrs = {name: self.value(v, depth, path + (f"attr {name}",))
                 for name, v in sorted(vars(obj).items())}
        return ["object", type(obj).__module__, type(obj).__qualname__, methods, attrs]

    def function(self, fn, depth: int, path: tuple):
        """A function's source and everything its code names, as JSON-able data."""
        if depth > _MAX_DEPTH:
            raise _Uncacheable("functions nested too deep")
        if fn in self.seen:
            return ["recursive", fn.__qualname__]
        self.seen.add(fn)
        try:
            source = inspect.getsource(fn)
        except (OSError, TypeError):
            source = repr((fn.__code__.co_code, fn.__code__.co_consts))
        namespace = fn.__globals__
        names = {}
        for name in sorted(set(_code_names(fn.__code__))):
            if name in namespace:
                names[name] = self.value(namespace[name], depth, path + (f"global {name}",))
            elif hasattr(builtins, name):
                names[name] = ["builtin", name]
        cells = [self.value(c.cell_contents, depth, path + (f"cell {i}",))
                 for i, c in enumerate(fn.__closure__ or ())]
        defaults = [self.value(v, depth, path + (f"default {i}",))
                    for i, v in enumerate(fn.__defaults__ or ())]
        kwdefaults = {k: self.value(v, depth, path + (f"kwdefault {k}",))
                      for k, v in sorted((fn.__kwdefaults__ or {}).items())}
        return [fn.__module__, fn.__qualname__, source, names, cells, defaults, kwdefaults]


def _origin(cls) -> str:
    """"flowjit", "library" (builtins, installed packages: their objects may hold anything
    and are not walked) or "user" (the program's own classes)."""
    if cls.__module__.startswith(__name__.split(".")[0] + "."):
        return "flowjit"
    module = sys.modules.get(cls.__module__)
    if module is None or cls.__module__ == "__main__":   # loaded by hand (importlib), a script
        return "user"
    path = getattr(module, "__file__", None)
    if path is None or any(part in path for part in ("site-packages", "dist-packages")):
        return "library"      # builtins, extension modules, installed packages
    return "user"


def _code_names(code) -> list:
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names += _code_names(const)
    return names


def _environment() -> dict:
    from importlib.metadata import version as installed_version

    from ...lowering import rule_generation
    from ...runtime import xla
    device = xla.device()
    package = __name__.split(".")[0]
    # the package's version, read from the loaded package (importing it here would be a
    # cycle: the package imports this layer)
    version = getattr(sys.modules.get(package), "__version__", None)
    # The optimizer options live in the passes layer; until it is loaded nobody has set any,
    # and loading it (xDSL) here would cost a warm start about a second.
    pipeline = sys.modules.get(package + ".passes.pipeline")
    options = pipeline.get_experimental_options() if pipeline is not None else {}
    return {"flowjit": version, "jaxlib": installed_version("jaxlib"),
            "rules": rule_generation.GENERATION,
            "optimizer": sorted((k, repr(v)) for k, v in options.items()),
            "device": [device.platform, device.device_kind]}


class CacheKey(str):
    """An entry's key (hex), with the variables its function's code reaches by path."""
    variables: dict


def key_for(function, key):
    """The entry key (a CacheKey) of a call of `function` with trace type `key`, or None when
    the function cannot be keyed by content."""
    python_function = function.python_function
    if not isinstance(python_function, types.FunctionType):
        return None
    walk = _Walk()
    try:
        material = {"function": walk.function(python_function, 0, ()),
                    "trace": trace_type.describe(key),
                    "options": [repr(function.passes), function.autograph,
                                repr(function.donate_variables)],
                    "environment": _environment()}
    except _Uncacheable:
        return None
    text = json.dumps(material, sort_keys=True, default=repr)
    digest = CacheKey(hashlib.sha256(text.encode()).hexdigest())
    digest.variables = walk.variables
    return digest


# --- a hit -------------------------------------------------------------------------------------
class _WarmProgram:
    """The stored executable in the place of a trace's Program: `call(flat)`."""

    def __init__(self, executable, out_dtypes, sequence):
        self._executable = executable
        self._out_dtypes = out_dtypes
        self._sequence = sequence

    def call(self, flat):
        from ...runtime import xla
        from ..eager.tensor import Tensor
        from .backends import _on_device
        outs = self._executable.run(*[_on_device(t) for t in flat])
        if xla.SYNCHRONOUS:
            xla.wait(outs)
        results = [Tensor._wrap(v, d) for v, d in zip(outs, self._out_dtypes)]
        if self._sequence is None:
            return results[0]
        return tuple(results) if self._sequence == "tuple" else results


class WarmStart:
    """What a hit gives the Function: an object `call_flat` runs like a ConcreteFunction."""

    def __init__(self, program):
        self.program = program


def _read(folder: str, name: str, expected_sha=None) -> bytes:
    path = safe_files.resolve_inside(folder, name)
    st = os.lstat(path)
    if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o022):
        raise ValueError(f"{path} is not owned by this user alone")
    data = safe_files.read_regular(path, _LIMITS[name], "compilation cache file")
    if expected_sha is not None and hashlib.sha256(data).hexdigest() != expected_sha:
        raise ValueError(f"{path} does not match its SHA-256 in the manifest")
    return data


def entry_name(key: str, shapes=None) -> str:
    """An entry's folder name: the key, followed for a trace with `None` dims by a digest of
    the concrete argument shapes its executable was compiled for."""
    if shapes is None:
        return key
    text = json.dumps([list(shape) for shape in shapes])
    return f"{key}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def lookup(function, key, shapes=None):
    """The stored function for `key` (a WarmStart), or None (a miss: absent, or a bad
    entry, with a warning saying why). `shapes`: the call's argument shapes, which pick the
    entry when the trace type has `None` dims (a trace type without them has one entry)."""
    root = _DIR[0]
    if root is None or key is None or _CTX.tape_hook is not None:
        return None
    folder = os.path.join(root, key)
    if not os.path.isdir(folder) and shapes is not None:
        folder = os.path.join(root, entry_name(key, shapes))
    if not os.path.isdir(folder):
        return None
    try:
        manifest = safe_files.loads_json(_read(folder, MANIFEST), f"{folder}/{MANIFEST}")
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or \
                manifest.get("key") != key or \
                entry_name(key, manifest.get("shapes")) != os.path.basename(folder):
            raise ValueError("the manifest is another entry's or another format's")
        files = manifest["files"]
        code = _read(folder, "executable.bin", files["executable.bin"])
        out_dtypes = [D.as_dtype(name) for name in manifest["out_dtypes"]]
        sequence = manifest["sequence"]
        if sequence not in (None, "tuple", "list") or \
                (sequence is None and len(out_dtypes) != 1):
            raise ValueError("the manifest's outputs are malformed")
        captures = [_captured(key, path) for path in manifest["captures"]]
        written = [int(i) for i in manifest["written_args"]]
        num_args = int(manifest["num_args"])
        if not all(num_args <= i < num_args + len(captures) for i in written):
            raise ValueError("the manifest's written variables are malformed")
        executable = _load_executable(code, len(out_dtypes), num_args, captures, written)
    except (OSError, ValueError, TypeError, KeyError, DataLossError, RuntimeError) as e:
        log.warning("flowjit: compilation cache entry %s of %s is unusable, compiling "
                    "instead: %s", key, function.name, e)
        return None
    return WarmStart(_WarmProgram(executable, out_dtypes, sequence))


def _captured(key, path):
    """The variable the function's code reaches through `path` in this process."""
    handle = getattr(key, "variables", {}).get(tuple(path)) if type(path) is list else None
    if handle is None:
        raise ValueError(f"no variable is reached at {path!r} now")
    return handle


def _load_executable(code: bytes, num_results: int, num_args=0, captures=(), written=()):
    """The stored executable, its captured variables read (and the written ones updated)
    on each run as a traced call's are."""
    from ...runtime import xla
    from ...runtime.jax_internals import xla_client as xc
    try:
        loaded = xla.backend().deserialize_executable(code, xc.DeviceList((xla.device(),)))
    except Exception as e:   # XLA refuses bytes of another build or device: a miss
        raise ValueError(f"XLA cannot load the executable: {e}") from None
    return xla.XlaExecutable(loaded, num_results, written, {}, (), num_args, captures)


# --- storing -----------------------------------------------------------------------------------
def note_trace(cf, key):
    """Store the XLA executable `cf` compiles under `key` (compile_xla calls `store`)."""
    if _DIR[0] is not None and key is not None:
        _PENDING[cf] = key


def _sequence(structure):
    """None for one tensor, "tuple"/"list" for a flat sequence of them; else not storable."""
    if structure == ("out", 0):
        return None
    if structure[0] == "nest" and type(structure[1]) in (tuple, list) and \
            [s for s in structure[3]] == [("out", i) for i in range(len(structure[3]))]:
        return type(structure[1]).__name__
    raise _Uncacheable("nested outputs")


def store(cf, values, executable):
    """Write the entry of a compile, when its trace was noted and is storable: a trace with
    `None` dims stores one entry per concrete argument shapes it is compiled for."""
    key = _PENDING.get(cf) if not cf.static_shapes else _PENDING.pop(cf, None)
    root = _DIR[0]
    if key is None or root is None:
        return
    lowered = executable.lowered
    if cf.resizable or lowered.host_inputs or lowered.host_callbacks:
        return
    shapes = None if cf.static_shapes else [list(v.shape) for v in values[:cf.num_args]]
    paths = {id(h): path for path, h in getattr(key, "variables", {}).items()}
    try:
        sequence = _sequence(cf.structure)
        # every capture a variable the code reaches by a path (constants, or variables made
        # while tracing, could not be found again)
        captures = [list(paths[id(h)]) for h in cf.capture_values]
    except (_Uncacheable, KeyError):
        return
    from ...lowering.stablehlo import portable
    files = {"optimized.mlir": str(executable.df_module).encode(),
             "stablehlo.bc": portable.serialize(lowered.module),
             "executable.bin": bytes(executable.loaded.serialize())}
    manifest = {"format": FORMAT, "key": key, "function": cf.name,
                "out_dtypes": [d.name for d in cf.out_dtypes], "sequence": sequence,
                "num_args": cf.num_args, "shapes": shapes, "captures": captures,
                "written_args": list(lowered.written_args),
                "files": {n: hashlib.sha256(b).hexdigest() for n, b in files.items()}}
    folder = os.path.join(root, entry_name(key, shapes))
    try:
        os.makedirs(folder, mode=safe_files.dir_mode(), exist_ok=True)
        for name, data in files.items():
            safe_files.atomic_write(os.path.join(folder, name), data)
        # the manifest last: an entry without one is absent, never half-read
        safe_files.atomic_write(os.path.join(folder, MANIFEST),
                                json.dumps(manifest, indent=1).encode())
    except OSError as e:
        log.warning("flowjit: could not store %s in the compilation cache: %s", cf.name, e)


compilation.AFTER_XLA_COMPILE.append(store)
