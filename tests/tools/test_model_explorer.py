"""Compiler stages for Model Explorer: the df stages' JSON graph loads into Model Explorer's
own `graph_builder` types (strictly: no unknown field), name scopes become layers, every edge
joins existing nodes, the pass-time overlay loads into its `node_data_builder` types, StableHLO
is read by its own MLIR adapter, and its web app, in headless Chromium, shows the nodes."""
import json
import re
import shutil

import pytest

import flowjit as tf
from flowjit.frontend.tools import model_explorer
from flowjit.ir.printing import parse_module

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
    assert sorted(p.rsplit("/", 1)[1] for p in paths) == [
        "dataflow.json", "dataflow.pass_ms.json", "optimized.json", "optimized.pass_ms.json",
        "stablehlo.mlir"]
    adapter = pytest.importorskip("model_explorer.builtin_mlir_adapter")
    read = adapter.BuiltinMlirAdapter().convert(str(tmp_path / "stablehlo.mlir"), {})
    labels = {n["label"] for g in read["graphCollections"][0].graphs for n in g["nodes"]}
    assert {"stablehlo.dot_general", "stablehlo.select", "stablehlo.multiply"} <= labels


def test_pass_time_overlay_marks_the_ops_passes_changed():
    node_data_builder = pytest.importorskip("model_explorer.node_data_builder")
    ir = program.compiler_ir(*ARGS)
    for stage in model_explorer.DF_STAGES:
        data = model_explorer.node_data_json(ir, stage)
        loaded = dacite.from_dict(node_data_builder.GraphNodeData, data[stage],
                                  config=dacite.Config(strict=True))
        graph = model_explorer.graph_json(parse_module(ir.text(stage)), stage)
        value = {n["label"]: loaded.results[n["id"]].value
                 for n in graph["nodes"] if n["id"] in loaded.results}
        # the remapper fused matmul + add + relu: those ops carry its time, mul none
        assert value["mul"] == 0.0
        fused = "fused_matmul" if stage == "optimized" else "matmul"
        assert value[fused] > 0.0
        assert set(loaded.results) == {n["id"] for n in graph["nodes"]
                                       if n["id"].startswith("op") and n["label"] != "return"}


@pytest.mark.skipif(not any(map(shutil.which, model_explorer.BROWSERS)),
                    reason="no Chromium on PATH (python -m flowjit.frontend.tools.model_explorer "
                           "renders where one is)")
def test_model_explorer_web_app_shows_the_nodes_and_overlay(tmp_path):
    pytest.importorskip("playwright")
    ir = program.compiler_ir(*ARGS)
    model_explorer.write_stages(ir, str(tmp_path), stages=("optimized",))
    page = model_explorer.render(str(tmp_path / "optimized.json"),
                                 [str(tmp_path / "optimized.pass_ms.json")],
                                 str(tmp_path / "shot.png"))
    text = " ".join(page.split())
    # its graph info counts the op nodes (Model Explorer hides constants) and layers
    graph = model_explorer.graph_json(parse_module(ir.text("optimized")), "optimized")
    shown = [n for n in graph["nodes"] if n["label"] != "const"]
    assert f"op node count {len(shown)} layer count 2" in text
    # the node data table lists the overlay's values by node
    assert "pass time (ms)" in text
    assert re.search(r"fused_matmul [0-9.]*[1-9]", text) and "mul 0 " in text
    assert (tmp_path / "shot.png").stat().st_size > 10_000
