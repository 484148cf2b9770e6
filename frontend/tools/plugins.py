"""Loading user extensions: a Python file, a package folder or a module name given to
`flowjit-opt --load-plugin`, and the installed packages that declare an entry point in the
`flowjit.plugins` group:

    [project.entry-points."flowjit.plugins"]
    my_ops = "my_package.flowjit_ops"          # a module: importing it registers
    my_pass = "my_package.passes:register"     # or a function, called with no arguments

A plugin registers what it brings (ops, kernels, lowering rules, gradients, passes) when it
is imported, exactly as user code does. Each file or entry point is loaded once per process.
"""
from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import os
import sys

ENTRY_POINT_GROUP = "flowjit.plugins"

_loaded: dict = {}   # resolved path or module name or entry point -> the loaded module/object


def load_plugin(spec: str):
    """Import `spec`: a `.py` file, a package folder (with `__init__.py`) or a dotted module
    name. Returns the module. A file is imported as the module `flowjit_plugin_<stem>` (in
    `sys.modules`, which dataclasses and tracebacks need)."""
    path = os.path.realpath(spec)
    key = path if os.path.exists(path) else spec
    if key in _loaded:
        return _loaded[key]
    if os.path.isdir(path):
        init = os.path.join(path, "__init__.py")
        if not os.path.isfile(init):
            raise ImportError(f"plugin folder '{spec}' has no __init__.py")
        module = _import_file(os.path.basename(path), init, [path])
    elif os.path.isfile(path):
        if not path.endswith(".py"):
            raise ImportError(f"plugin file '{spec}' is not a .py file")
        module = _import_file(f"flowjit_plugin_{os.path.basename(path)[:-3]}", path, None)
    elif spec.endswith(".py") or os.sep in spec:
        raise ImportError(f"no such file or folder: '{spec}'")
    else:
        module = importlib.import_module(spec)
    _loaded[key] = module
    return module


def _import_file(name: str, path: str, package_path):
    spec = importlib.util.spec_from_file_location(name, path,
                                                  submodule_search_locations=package_path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_entry_point_plugins() -> list:
    """Load every `flowjit.plugins` entry point of the installed distributions (a module is
    imported; a function is called). Returns the names of those loaded now."""
    names = []
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        key = f"entry point {ep.name} = {ep.value}"
        if key in _loaded:
            continue
        obj = ep.load()
        if callable(obj):
            obj()
        _loaded[key] = obj
        names.append(ep.name)
    return names
