"""Compiler stages for Model Explorer: the df stages' JSON graph loads into Model Explorer's
own `graph_builder` types (strictly: no unknown field), name scopes become layers, every edge
joins existing nodes, and StableHLO is written as Model Explorer reads it (`.mlir`)."""
import json

import pytest

import flowjit as tf
from flowjit.frontend.tools import model_explorer

dacite = pytest.importorskip("dacite")
graph_builder = pytest.importorskip("model_explorer.graph_builder")


@tf.function
def program(x, w):
    with tf.name_scope("dense"):
        y = tf.matmul(x, w) + 1.0
    with tf.name_scope("head"):
        return tf.nn.relu(y) * 2.0


ARGS = (tf.ones([2, 3]), tf.ones([3, 4]))


def test_df_stages_load_into_model_explorers_types(tmp_path):
    ir = program.compiler_ir(*ARGS)
    data = json.loads(json.dumps(model_explorer.collection_json(ir)))
    collection = dacite.from_dict(graph_builder.GraphCollection, data,
                                  config=dacite.Config(strict=True))
    assert [g.id for g in collection.graphs] == ["dataflow", "optimized"]
    dataflow = collection.graphs[0]
    ids = {n.id for n in dataflow.nodes}
    assert all(e.sourceNodeId in ids for n in dataflow.nodes for e in n.incomingEdges)
    by_label = {n.label: n for n in dataflow.nodes}
    assert by_label["matmul"].namespace == "program/dense"
    assert by_label["relu"].namespace == "program/head"
    assert [e.sourceNodeId for e in by_label["matmul"].incomingEdges] == ["arg0", "arg1"]
    assert by_label["matmul"].outputsMetadata[0].attrs[0].value == "tensor<2x4xf32>"
    assert any(a.key == "source" and "test_model_explorer.py" in a.value
               for a in by_label["matmul"].attrs)
    # the optimized stage shows what the passes did (matmul + bias + relu fused)
    assert len(collection.graphs[1].nodes) < len(dataflow.nodes)


def test_write_stages_writes_json_per_stage_and_stablehlo(tmp_path):
    f = tf.function(program.python_function, jit_compile=True)
    paths = model_explorer.write_stages(f.compiler_ir(*ARGS), str(tmp_path))
    assert sorted(p.rsplit("/", 1)[1] for p in paths) == ["dataflow.json", "optimized.json",
                                                         "stablehlo.mlir"]
    assert "stablehlo.dot_general" in (tmp_path / "stablehlo.mlir").read_text()
