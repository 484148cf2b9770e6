"""No import cycle between flowjit's modules.

The graph: one node per module of the package (every `.py` outside tests/, bench/,
examples/; `api/x.py` is `flowjit.x`, as the package's `__path__` makes it), one edge per
import statement anywhere in it, inside functions too (an import deferred into a function is
still a dependency; deferring only hides a cycle from the interpreter).

Packages: `from pkg import name` is an edge to the submodule `pkg.name` when there is one,
else to `pkg`'s `__init__`. Importing `a.b.c` also runs the `__init__` of `a` and `a.b`,
but those implicit edges are not counted: a package `__init__` re-exports what is below it,
so counting them would put every module in one cycle with the top-level `__init__`. For the
same reason an `__init__`'s own imports of modules below it (re-exports, or the imports that
make a family's modules register their entries in a table the `__init__` defines) are not
edges. An `__init__` is otherwise a node like any other module: a module that imports a
table from its package's `__init__` depends on it, and the `__init__`'s imports of modules
outside its package count.
"""
from __future__ import annotations

import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIPPED = {"tests", "bench", "examples", "build", "__pycache__"}


def module_files() -> dict:
    """Module name -> file, for every module of the package."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED and not d.startswith("."))
        rel = os.path.relpath(dirpath, ROOT)
        parts = [] if rel == "." else rel.split(os.sep)
        if parts[:1] == ["api"]:           # api/ joins flowjit's __path__
            parts = parts[1:]
        for f in filenames:
            if f.endswith(".py"):
                name = parts + ([] if f == "__init__.py" else [f[:-3]])
                found[".".join(["flowjit"] + name)] = os.path.join(dirpath, f)
    return found


def imports_of(name: str, path: str, modules: dict) -> set:
    """The modules of the package that `path` (module `name`) imports, anywhere in it."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    is_package = path.endswith("__init__.py")
    package = name if is_package else name.rsplit(".", 1)[0]
    out = set()

    def add(target):
        while target and target not in modules:   # `import a.b.c` of a name inside a module
            target = target.rpartition(".")[0]
        if target and target != name and not (is_package and target.startswith(name + ".")):
            out.add(target)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if not source.startswith("flowjit"):
                continue
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                add(sub if sub in modules else source)
    return out


def cycles(graph: dict) -> list:
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        work = [(v, iter(sorted(graph[v])))]
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        while work:
            node, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def import_graph() -> dict:
    modules = module_files()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def test_the_graph_sees_imports_inside_functions():
    graph = import_graph()
    # backends.py imports rebuild at the top; program.py imports backends inside a method
    assert "flowjit.frontend.function.function_call" in graph["flowjit.frontend.function.backends"]
    assert "flowjit.frontend.function.backends" in graph["flowjit.frontend.function.program"]
    assert "flowjit.math" in graph and "flowjit.frontend.export" in graph["flowjit.math"]


def test_no_import_cycles():
    graph = import_graph()
    found = cycles(graph)
    report = []
    for component in found:
        members = set(component)
        edges = sorted(f"{a} -> {b}" for a in component for b in graph[a] if b in members)
        report.append(f"{len(component)} modules: " + "; ".join(edges))
    assert not found, "import cycles:\n" + "\n".join(report)
