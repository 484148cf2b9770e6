"""`dependency`: identities go, region ops that only pass a token through lose it, unused
create_token goes; every stateful op keeps its place in the token chain. Results (and
printed output, and variable values) are unchanged; the pass is idempotent."""
import io

import numpy as np

import flowjit as tf
from flowjit.ir.dialect import CondOp, TokenType, WhileOp
from flowjit.ir.printing import parse_module, print_module
from flowjit.passes.pipeline import run_pipeline
from pass_helpers import assert_idempotent, check

PASS = "dependency"
RNG = np.random.default_rng(0)
X = RNG.normal(size=(3, 4)).astype(np.float32)


def _module(fn, args, passes=PASS):
    f = tf.function(fn, passes=passes)
    return f.get_concrete_function(*[tf.constant(a) for a in args]).optimized_module()


def test_identities_are_dropped():
    def f(x):
        y = tf.identity(tf.identity(x) * 2.0)
        return tf.identity(y), tf.exp(y)
    counts, xla_counts = check(f, [X], PASS)
    assert counts["df.identity"] == 0 and xla_counts["df.identity"] == 0
    assert_idempotent(f, [X], PASS)


def test_stateful_order_is_kept():
    v = tf.Variable(np.zeros(4, np.float32))
    log = io.StringIO()

    def f(x):
        tf.print("first", output_stream=log)
        v.assign(tf.identity(x[0]))
        y = tf.cond(x[0, 0] > 0, lambda: v.read_value() * 2.0, lambda: v.read_value())
        v.assign_add(tf.identity(y))
        tf.print("last", output_stream=log)
        return v.read_value()

    def reset():
        v.assign(np.zeros(4, np.float32))
        log.seek(0)
        log.truncate()
    check(f, [X], PASS, reset=reset, xla=False)       # print does not run under XLA
    reset()
    tf.function(f, passes=PASS)(X)
    assert log.getvalue().split() == ["first", "last"]
    m = _module(f, [X])
    conds = [o for o in m.walk() if isinstance(o, CondOp)]
    # the cond reads the variable: it is stateful and keeps its token
    assert len(conds) == 1 and isinstance(conds[0].results[-1].type, TokenType)
    names = [o.name for o in m.walk()]
    assert names.count("df.assign_variable") == 1 and names.count("df.print") == 2
    reset()


def test_pass_through_tokens_leave_region_ops():
    # After debug-stripper removed the asserts, the cond and the loop carry a token that
    # orders nothing: dependency removes it, so the cond and the loop are pure again.
    def f(x, n):
        y = tf.cond(x[0, 0] > 0, lambda: (tf.debugging.Assert(True, [x]), x * 2.0)[1],
                    lambda: x)

        def body(i, a):
            tf.debugging.assert_less(i, 100)
            return i + 1, a + 1.0
        return tf.while_loop(lambda i, a: i < n, body, (tf.constant(0), y))[1]
    passes = "debug-stripper,dependency"
    check(f, [X, np.int32(3)], passes, base="debug-stripper", xla=False)
    m = _module(f, [X, np.int32(3)], passes)
    for op in m.walk():
        if isinstance(op, (CondOp, WhileOp)):
            assert not any(isinstance(r.type, TokenType) for r in op.results)
            assert not any(isinstance(v.type, TokenType) for v in op.operands)
    assert not [o for o in m.walk() if o.name == "df.create_token"]
    assert_idempotent(f, [X, np.int32(3)], passes)
    # without the stripper, the asserts keep the tokens
    m = _module(f, [X, np.int32(3)], PASS)
    loops = [o for o in m.walk() if isinstance(o, WhileOp)]
    assert any(isinstance(r.type, TokenType) for r in loops[0].results)


def test_type_relaxing_identity_kept_before_return():
    text = """
    func.func @f(%0: tensor<3xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
      %1 = df.identity %0 : (tensor<3xf32>) -> tensor<?xf32>
      %2 = df.identity %0 : (tensor<3xf32>) -> tensor<?xf32>
      %3 = df.neg %2 : (tensor<?xf32>) -> tensor<?xf32>
      func.return %1, %3 : tensor<?xf32>, tensor<?xf32>
    }"""
    m = parse_module(text)
    run_pipeline(m, PASS)
    names = [o.name for o in m.walk()]
    assert names.count("df.identity") == 1
    out = print_module(m)
    run_pipeline(m, PASS)
    assert print_module(m) == out
