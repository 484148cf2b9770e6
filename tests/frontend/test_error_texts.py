"""Error texts as TF 2.21 writes them (tools/record_semantics.py runs tests/error_text_cases.py
under TF into tests/data/tf_semantics.json): the class; TF's text first and unchanged, so code
matching on it works; inside a `tf.function`, the "in user code:" block naming the user's line
and its source before the message; eagerly, `[Op:...]` after the text and the user's line as a
note (Python prints it under the traceback)."""
import json
import os
import re

import pytest

import error_text_cases
import flowjit as tf
from flowjit.ir.errors import USER_LINE_NOTE

with open(os.path.join(os.path.dirname(__file__), "..", "data", "tf_semantics.json")) as _f:
    TF = json.load(_f)["error_texts"]
CASES = {fn.__name__: fn for fn in error_text_cases.cases(tf)}
MODES = ("eager", "graph", "xla")
BLOCK = re.compile(r"^(in user code:\n\n(?:    File .*\n        .*\n)+\n)    (\w+): (.*)\n$",
                   re.S)


def _eager_text(message):
    """TF's eager text without the kernel's `{{function_node ...}}` and `[Op:...]` wrapping."""
    message = re.sub(r"^\{\{function_node [^}]*\}\} ", "", message)
    return re.sub(r" \[Op:.*$", "", message)


def _node_text(message):
    """TF's graph-building text before the node it names."""
    return message.split(" for '{{node ")[0]


def _run(name, mode):
    got = error_text_cases.run(tf, CASES[name], mode)
    want = TF[name][mode]
    if want is None:
        assert got is None
        return None, None
    assert got is not None and got[0] == want[0], (got, want)
    return got[1], want[1]


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_text_is_tfs_then_the_op(name):
    got, want = _run(name, "eager")
    assert got.startswith(_eager_text(want) + " [Op:"), (got, want)
    assert "<file>" not in got and "[at " not in got


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_error_notes_the_users_line(name):
    with pytest.raises(Exception) as info:
        CASES[name](tf.ones([2, 3]))
    notes = getattr(info.value, "__notes__", [])
    line = CASES[name].__code__.co_firstlineno + 1
    assert f"{USER_LINE_NOTE}{error_text_cases.__file__}:{line} ({name})" in notes


@pytest.mark.parametrize("mode", ["graph", "xla"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_traced_text_has_tfs_user_code_block(name, mode):
    got, want = _run(name, mode)
    if want is None:
        return
    tf_block = BLOCK.match(want)
    if tf_block is None:   # a run-time error: TF's text, after the node's definition site
        assert _eager_text(want.split("\n\n")[-1].split("\n")[0]) in got, (got, want)
        assert "<file>" in got
        return
    ours = BLOCK.match(got)
    assert ours is not None, got
    assert ours.group(1) == tf_block.group(1)       # the user's frames and source lines
    assert ours.group(2) == tf_block.group(2)
    assert ours.group(3).startswith(_node_text(tf_block.group(3)) + " for '{{node "), got
