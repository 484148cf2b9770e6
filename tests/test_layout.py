"""The TF namespaces are real modules (files in api/, imported as `flowjit.<name>`), and
nothing in the project points outside its repository."""
from __future__ import annotations

import importlib
import os
import subprocess

import pytest

import flowjit as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMESPACES = ("math", "nn", "linalg", "random", "debugging", "strings", "config", "dtypes",
              "errors", "image", "nest", "optimizers", "autodiff", "train", "saved_model",
              "autograph", "autograph.experimental", "keras", "types",
              "types.experimental")


@pytest.mark.parametrize("name", NAMESPACES)
def test_each_namespace_is_a_module_file_of_its_own_name(name):
    module = importlib.import_module(f"flowjit.{name}")
    assert module.__name__ == f"flowjit.{name}"
    path = os.path.relpath(module.__file__, os.path.dirname(tf.__file__))
    assert path in (f"api/{name.replace('.', '/')}.py",
                    f"api/{name.replace('.', '/')}/__init__.py"), path
    obj = tf
    for part in name.split("."):
        obj = getattr(obj, part)
    assert obj is module


def test_imports_as_users_write_them():
    import flowjit.math as m
    from flowjit.errors import InvalidArgumentError
    assert m.reduce_sum is tf.reduce_sum and tf.math is m
    assert InvalidArgumentError is tf.errors.InvalidArgumentError
    with pytest.raises(InvalidArgumentError, match="Matrix size-incompatible"):
        tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]))


def test_nothing_points_outside_the_repository():
    try:
        files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                               check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    # Built from pieces, so that this file does not itself hold what it looks for (a grep of
    # the repository for paths outside it would find it here).
    outside = ("../" + "shared", "DESIGN" + ".md", "/" + "work" + "/")
    hits = []
    for rel in files:
        try:
            text = open(os.path.join(ROOT, rel), encoding="utf-8").read()
        except (UnicodeDecodeError, IsADirectoryError):
            continue
        hits += [f"{rel}: {needle}" for needle in outside if needle in text]
    assert hits == []
