"""Every registry op is checked against TF's recorded answers (tests/test_tf_oracle.py) in all
three modes, with a gradient where it has one, unless a table below says why not.

Each oracle case that TF answers with values (not an error, not a known mismatch) is traced
once as the `tf.function` that test_tf_oracle.py runs in the graph and XLA modes (its eager
mode runs the same API calls op by op; a case checked eagerly only runs eagerly here); the
registry ops in its graph (nested control-flow graphs included) are covered in the case's
modes, and the ops whose gradient function the case's tape ran are covered with a gradient.
Tables that name an op the cases already cover fail too, so they only shrink.
"""
from __future__ import annotations

import collections
import json
import os

import pytest

import flowjit as tf
import test_tf_oracle as oracle_test
from flowjit.frontend.eager import dispatch
from flowjit.frontend.gradients import tape as tape_module
from flowjit.ir.graph import Graph
from flowjit.ir.registry import OPS
from oracle import runner
from oracle.spec import MODES

# Ops no oracle case can check, by what checks them instead.
NOT_IN_ORACLE = {
    **{op: "only passes create it: tests/passes/test_remapper.py compares it with the unfused ops"
       for op in ("fused_conv2d", "fused_matmul")},
    **{op: "a Variable's state: tests/frontend/test_variables.py checks it in every mode"
       for op in ("read_variable", "assign_variable", "assign_add_variable",
                  "assign_sub_variable")},
    **{op: "stateful random: TF's stream is its own; tests/ops/test_random.py checks the "
       "distributions" for op in ("random_standard_normal", "random_truncated_normal",
                                  "random_uniform", "random_uniform_int")},
    **{op: "MirroredStrategy/DTensor collectives: tests/distributed run them on several "
       "devices against TF's recorded answers" for op in ("all_reduce", "relayout")},
    **{op: "flowjit's Threefry stream, not TF's Philox (README): tests/ops/test_random.py "
       "checks the distributions and the same values in every mode" for op in (
           "stateless_random_normal", "stateless_random_truncated_normal",
           "stateless_random_uniform", "stateless_random_uniform_full_int",
           "stateless_random_uniform_int")},
    "string_split": "its result is a RaggedTensor: tests/composite's recorded "
                    "ragged_strings_split checks it against TF",
    "print": "its answer is text on stderr: tests/frontend/test_graph_state.py checks it",
    **{op: "takes feature dicts and proto bytes: tests/tfdata/test_tfrecord.py checks it "
       "against TF's recorded answers (tools/record_tf_tfrecord.py)" for op in (
           "decode_raw", "parse_example", "parse_sequence_example", "parse_tensor",
           "serialize_tensor")},
    "py_function": "runs Python: tests/frontend/test_script_ops.py checks it in every mode",
    "numpy_function": "runs Python: tests/frontend/test_script_ops.py checks it in every mode",
}

# Ops whose cases cannot run under XLA, as TF's XLA refuses them too: strings, and results
# whose shape depends on values (XLA compiles static shapes).
NO_XLA = {
    **{op: "string tensors: XLA has no strings" for op in (
        "as_string", "reduce_join", "regex_full_match", "regex_replace", "string_format",
        "string_join", "string_length", "string_lower", "string_strip", "string_to_number",
        "string_to_hash_bucket", "string_to_hash_bucket_fast", "string_to_hash_bucket_strong",
        "string_upper", "substr", "unicode_decode", "unicode_decode_with_offsets",
        "unicode_encode", "unicode_split", "unicode_transcode", "unsorted_segment_join")},
    **{op: "its result's shape depends on the values" for op in (
        "unique", "unique_with_counts", "where_indices", "segment_max", "segment_mean",
        "segment_min", "segment_prod", "segment_sum", "ctc_beam_search_decoder")},
    **{op: "TF's XLA has no kernel for it (op_samples checks the refusal)"
       for op in ("fingerprint", "isotonic_regression")},
}

# Differentiable ops that no case differentiates, with the reason.
NO_GRADIENT_CASE = {
    **{op: "the tape does not differentiate complex tensors yet (README)"
       for op in ("complex", "conj", "real", "imag", "fft", "ifft", "rfft", "irfft")},
    "bincount": "TF registers no gradient: a cover_ops case checks TF's LookupError",
}


def _walk(graph: Graph, out: set) -> set:
    for node in graph.nodes:
        out.add(node.op)
        for value in node.attrs.values():
            for g in value if isinstance(value, (tuple, list)) else (value,):
                if isinstance(g, Graph):
                    _walk(g, out)
    return out


def _answered_cases():
    """(case, group/id) of each case TF answered with values that runs as recorded."""
    for group, cases in runner.case_modules().items():
        path = os.path.join(runner.DATA, f"{group}.json")
        records = json.load(open(path))["cases"] if os.path.exists(path) else {}
        for i, c in enumerate(cases):
            cid = f"{group}/{runner.case_id(c, i)}"
            record = records.get(runner.case_id(c, i))
            if record is None or "error" in record or cid in oracle_test.KNOWN_MISMATCHES:
                continue
            yield c, cid


@pytest.fixture(scope="module")
def coverage():
    """op -> modes covered, op -> modes covered with a gradient, op -> one case id."""
    modes, grad_modes, example = (collections.defaultdict(set) for _ in range(3))
    differentiated, executed = set(), set()
    call_grad, execute = tape_module._call_grad, dispatch.execute

    def recording_grad(entry, needed, out_grads):
        if entry.opdef is not None:
            differentiated.add(entry.opdef.name)
        return call_grad(entry, needed, out_grads)

    def recording_execute(opdef, inputs, attrs):
        executed.add(opdef.name)
        return execute(opdef, inputs, attrs)

    tape_module._call_grad, dispatch.execute = recording_grad, recording_execute
    try:
        for c, cid in _answered_cases():
            inputs = [runner.make_tensor(tf, s) for s in oracle_test._tensor_specs(
                c["args"], []) + oracle_test._tensor_specs(c["kwargs"], [])]
            differentiated.clear()
            executed.clear()
            if "graph" in c["modes"]:
                graph = tf.function(oracle_test._body(c)).get_concrete_function(*inputs).graph
                ran = _walk(graph, set())
            else:
                oracle_test._body(c)(*inputs)
                ran = executed
            for op in ran & set(OPS):
                modes[op] |= set(c["modes"])
                example.setdefault(op, cid)
            for op in differentiated:
                grad_modes[op] |= set(c["modes"])
    finally:
        tape_module._call_grad, dispatch.execute = call_grad, execute
    return modes, grad_modes, example


def test_every_op_has_a_recorded_case(coverage):
    modes, _, _ = coverage
    missing = sorted(op for op in OPS if op not in modes and op not in NOT_IN_ORACLE)
    assert not missing, f"no oracle case runs {missing}: add one to tests/oracle/cases_*.py"


def test_every_op_is_checked_in_all_three_modes(coverage):
    modes, _, _ = coverage
    partial = {op: sorted(set(MODES) - m) for op, m in modes.items()
               if set(MODES) - m - ({"xla"} if op in NO_XLA else set())}
    assert not partial, f"ops no case checks in some modes: {partial}"


def test_every_differentiable_op_has_a_gradient_case(coverage):
    _, grad_modes, _ = coverage
    missing = sorted(op for op, d in OPS.items() if d.differentiable and op not in grad_modes
                     and op not in NOT_IN_ORACLE and op not in NO_GRADIENT_CASE)
    assert not missing, f"no oracle case differentiates {missing}: add grad=(...) cases"
    partial = {op: sorted(set(MODES) - m) for op, m in grad_modes.items()
               if set(MODES) - m - ({"xla"} if op in NO_XLA else set())}
    assert not partial, f"ops whose gradient no case checks in some modes: {partial}"


def test_the_tables_name_only_uncovered_ops(coverage):
    modes, grad_modes, example = coverage
    for table in (NOT_IN_ORACLE, NO_XLA, NO_GRADIENT_CASE):
        assert set(table) <= set(OPS), sorted(set(table) - set(OPS))
    stale = {op: example[op] for op in NOT_IN_ORACLE if op in modes}
    stale.update({op: "an XLA case" for op in NO_XLA if "xla" in modes.get(op, ())})
    stale.update({op: "a gradient case" for op in NO_GRADIENT_CASE if op in grad_modes})
    assert not stale, f"table entries the oracle cases now cover: {stale}"
