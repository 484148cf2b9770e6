"""The shortcuts that keep tracing and import fast change no result: the
collector's state is restored, repeated constants stay distinct where their bits differ,
locations still name the user's lines, and the specializer copies only graphs it changes."""
import gc
import inspect

import numpy as np
from xdsl.dialects.builtin import FileLineColLoc, NameLoc, StringAttr, UnknownLoc

import flowjit as tf
from flowjit.ir.gc_pause import gc_paused
from flowjit.ir.importer import import_graph, location_parts
from flowjit.ir.specialize import specialize


def test_gc_pause_nests_and_restores_the_callers_state():
    assert gc.isenabled()
    with gc_paused():
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()      # the outer pause still holds
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()      # a collector the user turned off stays off
    finally:
        gc.enable()


def test_repeated_constants_keep_their_bits():
    # 0.0 == -0.0 and 1 == True in Python; the importer's memo must keep them apart.
    @tf.function
    def f(x, n):
        return x + 0.0, x + -0.0, x + 0.0, n + 1, tf.logical_and(n > 0, True)

    x, n = np.float32(-0.0), np.int32(3)
    got = [t.numpy() for t in f(tf.constant(x), tf.constant(n))]
    want = [x + np.float32(0.0), x + np.float32(-0.0), x + np.float32(0.0), n + 1, True]
    assert [np.signbit(g) for g in got[:3]] == [np.signbit(w) for w in want[:3]]  # F, T, F
    assert got[3] == want[3] and got[3].dtype == np.int32
    assert got[4] == want[4] and got[4].dtype == np.bool_


def test_locations_name_each_users_line():
    def body(x):
        y = tf.tanh(x)
        z = tf.exp(y)
        return tf.tanh(z)

    first = inspect.getsourcelines(body)[1]
    cf = tf.function(body).get_concrete_function(tf.TensorSpec([2], tf.float32))
    module = import_graph(cf.graph, "body")
    lines = {}
    for op in module.walk():
        parts = location_parts(op.location)
        if parts and parts[0].split("/")[-1] in ("tanh", "exp", "tanh_1"):
            assert parts[1] == __file__
            lines[parts[0].split("/")[-1]] = parts[2]
    assert lines == {"tanh": first + 1, "exp": first + 2, "tanh_1": first + 3}


def test_unchecked_locations_equal_verified_ones():
    # The importer builds NameLocs without xDSL's constraint checks; each must equal (and
    # hash and print as) the NameLoc its constructor makes from the same parameters.
    cf = tf.function(lambda x: tf.tanh(x) + 1.0).get_concrete_function(
        tf.TensorSpec([2], tf.float32))
    locs = [op.location for op in import_graph(cf.graph, "f").walk()
            if isinstance(op.location, NameLoc)]
    assert len(locs) >= 3
    for loc in locs:
        checked = NameLoc(StringAttr(loc.desc.data), loc.location)
        assert loc == checked and hash(loc) == hash(checked) and str(loc) == str(checked)
        assert isinstance(loc.location, (FileLineColLoc, UnknownLoc))


def test_specializer_copies_only_graphs_it_changes():
    def body(x):
        return tf.reduce_sum(x * 2.0, axis=0)

    f32 = tf.float32
    static = tf.function(body).get_concrete_function(tf.TensorSpec([3, 2], f32)).graph
    types = [p.out_types[0] for p in static.inputs]
    assert specialize(static, types) is static

    dynamic = tf.function(body).get_concrete_function(tf.TensorSpec([None, 2], f32)).graph
    concrete = [types[0]._replace(shape=(5, 2))]
    g = specialize(dynamic, concrete)
    assert g is not dynamic
    assert [n.out_types[i].shape for n, i in g.outputs] == [(2,)]
    assert [n.out_types[i].shape for n, i in dynamic.outputs] == [(2,)]
    assert g.inputs[0].out_types[0].shape == (5, 2)
