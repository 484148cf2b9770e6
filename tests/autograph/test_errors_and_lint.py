"""Errors raised while tracing converted code point at the user's own lines (TF's "in user
code:" block, tracebacks, and flowjit's `[at file:line]` notes), never at generated code; and
Python side effects inside staged regions are reported (only when the region is staged)."""
import inspect
import warnings

import pytest

import flowjit as tf
from flowjit.frontend.autograph import AutoGraphWarning

FILE = __file__
COUNTER = 0


def _line(fn, offset):
    return inspect.getsourcelines(fn)[1] + offset


def reshape_to_three(v):
    for _ in tf.range(2):
        v = v + 1.0
    return tf.reshape(v, [3])


def test_error_in_branch_shows_user_file_and_line():
    def f(x):
        y = x * 2.0
        if tf.reduce_sum(y) > 0:
            z = reshape_to_three(y)
        else:
            z = y
        return z

    with pytest.raises(ValueError) as info:
        tf.function(f)(tf.constant([1.0, 2.0]))
    msg = str(info.value)
    assert msg.startswith("in user code:")
    call_line, reshape_line = _line(f, 3), _line(reshape_to_three, 3)
    assert f'File "{FILE}", line {call_line}, in f  *\n        z = reshape_to_three(y)' in msg
    assert (f'File "{FILE}", line {reshape_line}, in reshape_to_three  *\n'
            f'        return tf.reshape(v, [3])') in msg
    # TF's text first and unchanged, then the node it names
    assert "ValueError: Cannot reshape a tensor with 2 elements to shape [3] (3 elements) " \
        "for '{{node reshape}}'" in msg
    assert "[at " not in msg
    for generated in ("ag__", "if_body", "else_body", "loop_body", "get_state", "<lambda>"):
        assert generated not in msg
    # Python's own traceback: every frame in this file is on a line of the user's code.
    tb = info.value.__traceback__
    user_lines = set(range(_line(f, 0), _line(f, 7))) | set(
        range(_line(reshape_to_three, 0), _line(reshape_to_three, 4))) | {_line(
            test_error_in_branch_shows_user_file_and_line, 10)}
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == FILE:
            assert tb.tb_lineno in user_lines, tb.tb_lineno
            assert tb.tb_frame.f_code.co_name in ("f", "reshape_to_three",
                                                  "test_error_in_branch_shows_user_file_and_"
                                                  "line")
        tb = tb.tb_next


def test_error_from_staging_points_at_the_statement():
    def f(x):
        total = 0.0
        for i in tf.range(3):
            total = tf.cast(total, tf.int32) + i
        return total

    with pytest.raises(TypeError) as info:
        tf.function(f)(tf.constant(1.0))
    msg = str(info.value)
    assert f'File "{FILE}", line {_line(f, 2)}, in f  *\n        for i in tf.range(3):' in msg
    assert "'total' has dtype float32 before the loop, but dtype int32" in msg


def test_error_type_is_kept():
    def f(x):
        if x > 0:
            x = x + "text"
        return x

    with pytest.raises(TypeError, match="in user code"):
        tf.function(f)(tf.constant(1.0))

    def g(x):
        return {"a": x}["b"]

    with pytest.raises(KeyError) as info:    # kept as is, with the block as a note
        tf.function(g)(tf.constant(1.0))
    assert any("in user code" in n for n in getattr(info.value, "__notes__", []))


# --- lint ------------------------------------------------------------------------------------
def _autograph_warnings(fn, *args, **function_kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tf.function(fn, **function_kwargs)(*args)
    return [w for w in caught if issubclass(w.category, AutoGraphWarning)]


def bump_global(x):
    global COUNTER
    if x > 0:
        COUNTER += 1
        x = x * 2.0
    return x


def test_lint_global_write_in_staged_branch():
    found = _autograph_warnings(bump_global, tf.constant(1.0))
    assert len(found) == 1
    w = found[0]
    assert w.filename == FILE and w.lineno == _line(bump_global, 3)
    assert "writes the global 'COUNTER'" in str(w.message) and "tf.cond" in str(w.message)
    assert "tf.Variable" in str(w.message)
    # A Python condition runs the branch as Python: nothing to warn about.
    assert _autograph_warnings(bump_global, 1.0) == []


def test_lint_unstaged_append_in_staged_loop():
    class Recorder:
        def __init__(self):
            self.items = []

        def run(self, x):
            staged = []
            for v in x:
                self.items.append(v)     # outer Python list: runs once, at trace time
                staged.append(v)         # local list: staged (Feature.LISTS), no warning
            return tf.stack(staged)

    rec = Recorder()
    found = _autograph_warnings(rec.run, tf.constant([1.0, 2.0]),
                                experimental_autograph_options=(
                                    tf.autograph.experimental.Feature.LISTS))
    assert len(found) == 1
    assert "`self.items.append(...)` to a Python list that is not staged" in str(
        found[0].message)
    assert found[0].lineno == _line(Recorder.run, 3)
    # It ran while tracing (once per trace of the body), with symbolic values.
    assert rec.items and all(not hasattr(v, "numpy") or v._value is None for v in rec.items)


def test_lint_unconverted_callee_with_print():
    @tf.autograph.experimental.do_not_convert
    def log(v):
        print("value", v)
        return v

    def f(x):
        if x > 0:
            x = log(x)
        return x

    found = _autograph_warnings(f, tf.constant(1.0))
    assert len(found) == 1
    assert "uses Python `print` and is not converted" in str(found[0].message)
    assert found[0].lineno == _line(f, 2)


def test_converted_print_does_not_warn():
    def f(x):
        for v in x:
            print(v)
        return x

    assert _autograph_warnings(f, tf.constant([1.0])) == []
