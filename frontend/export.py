"""TF's public names, marked where they are defined (TF's `@tf_export`).

    @tf_export("math.sigmoid", "nn.sigmoid", "sigmoid")
    def sigmoid(x, name=None): ...

    tf_export("bitwise.invert")(invert)        # an object defined elsewhere, or a class

An op's public function is found by the op's name (`flowjit.extend.api_for_op`), or, where
its name differs, by a mark on the function (or on a method of an exported class):

    @tf_export("math.divide", "divide")
    @runs("div")
    def divide(x, y, name=None): ...

A name is `"<namespace>.<name>"` with the namespace's dots (`"experimental.numpy.abs"`), or a
bare `"<name>"` for the top level. The namespace modules in `api/` (and the package's
`__init__.py` for the top level) call `install(globals(), "<namespace>")`, which loads every
op family's API module and binds every name exported into that namespace, so a new public
function touches only the file that defines it. Exporting one name twice with different
objects raises at import: two definitions would otherwise silently shadow each other.
"""
from __future__ import annotations

import importlib

# namespace ("" is the top level) -> public name -> object
EXPORTS: dict[str, dict[str, object]] = {}

# Modules whose import runs the `tf_export` marks: the op families' API modules and the
# modules defining a class or function whose methods or calls are an op's public API.
EXPORTING_PACKAGES = ("flowjit.frontend.ops", "flowjit.frontend.state.variables",
                      "flowjit.frontend.distribute.distribute", "flowjit.frontend.distribute.dtensor",
                      "flowjit.frontend.composite.indexed_slices",
                      "flowjit.frontend.composite.sparse_ops",
                      "flowjit.frontend.composite.ragged_ops",
                      "flowjit.frontend.composite.row_partition",
                      "flowjit.frontend.composite.nn_sparse",
                      "flowjit.frontend.control.critical_section")


def _split(public: str) -> tuple[str, str]:
    ns, _, name = public.rpartition(".")
    return ns, name


def tf_export(*public_names: str):
    """Mark an object as public under each of `public_names` (see the module doc)."""
    if not public_names:
        raise TypeError("tf_export needs at least one public name")

    def mark(obj):
        for public in public_names:
            ns, name = _split(public)
            table = EXPORTS.setdefault(ns, {})
            if table.get(name, obj) is not obj:
                raise ValueError(f"tf_export: '{public}' is already exported as "
                                 f"{table[name]!r}; not also as {obj!r}")
            table[name] = obj
        return obj
    return mark


def runs(*opnames: str):
    """Mark a public function, or a method of an exported class, as the one that runs each op
    of `opnames` (for ops whose public function has another name: `tf.where` runs `select`)."""
    def mark(fn):
        fn.__tf_ops__ = getattr(fn, "__tf_ops__", ()) + opnames
        return fn
    return mark


def ops_run_by(obj) -> tuple:
    """The ops `runs` marked `obj` with."""
    return getattr(obj, "__tf_ops__", ())


def exported(namespace: str) -> dict[str, object]:
    """The names exported into `namespace` ("" for the top level), after loading every
    exporting module."""
    for pkg in EXPORTING_PACKAGES:
        importlib.import_module(pkg)
    return dict(EXPORTS.get(namespace, {}))


def install(namespace_globals: dict, namespace: str) -> None:
    """Bind every name exported into `namespace` in a namespace module's globals. A name the
    module already binds to another object is an error (the module would shadow the export)."""
    for name, obj in exported(namespace).items():
        have = namespace_globals.get(name, obj)
        if have is not obj:
            raise ValueError(f"namespace '{namespace or 'tf'}': '{name}' is exported as "
                             f"{obj!r} but the namespace module binds {have!r}")
        namespace_globals[name] = obj
