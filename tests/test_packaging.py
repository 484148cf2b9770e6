"""The explicit package list in pyproject.toml must name every package folder, or a
non-editable `pip install .` silently misses modules."""
import os
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_every_package_folder_is_listed():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        listed = set(tomllib.load(f)["tool"]["setuptools"]["packages"])
    found = set()
    for dirpath, dirnames, filenames in os.walk(ROOT):
        rel = os.path.relpath(dirpath, ROOT)
        dirnames[:] = [d for d in dirnames if not d.startswith((".", "build", "tests"))
                       and d not in ("examples", "bench", "__pycache__")]
        if "__init__.py" in filenames:
            found.add("flowjit" if rel == "." else "flowjit." + rel.replace(os.sep, "."))
    assert found - listed == set(), f"add to pyproject.toml packages: {sorted(found - listed)}"
