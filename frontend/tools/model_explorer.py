"""Compiler stages for Google's Model Explorer (`pip install ai-edge-model-explorer`, the
`explorer` extra): StableHLO as it is (Model Explorer reads `.mlir` itself), and df stages as
Model Explorer's JSON graph collection: one node per op (nested ops too), named after the
op's node, name scopes as layers (the node's `<function>/<scope>/...` path), edges from each
operand's producer, the op's attributes, result types and source line shown on it.

    from flowjit.frontend.tools.model_explorer import write_stages
    write_stages(f.compiler_ir(x), "out/")      # out/stablehlo.mlir, out/dataflow.json, ...
    model-explorer out/optimized.json           # Model Explorer's own command (a browser UI)

The JSON follows Model Explorer's `graph_builder` dataclasses field for field; nothing here
imports Model Explorer.
"""
from __future__ import annotations

import json
import os

DF_STAGES = ("dataflow", "optimized")


def _node_path(op):
    from ...ir.importer import location_parts
    parts = location_parts(op.location)
    return parts if parts is not None else (None, None, None, None)


def _type_text(ty) -> str:
    return str(ty).replace("!", "")


def graph_json(module, graph_id: str) -> dict:
    """One df module as a Model Explorer `Graph` (a JSON dict)."""
    from xdsl.dialects import func
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    nodes, producer = [], {}

    def add(node_id, label, namespace, attrs, edges, outputs):
        nodes.append({"id": node_id, "label": label, "namespace": namespace,
                      "subgraphIds": [], "attrs": attrs, "incomingEdges": edges,
                      "outputsMetadata": outputs, "inputsMetadata": []})

    for i, arg in enumerate(fn.body.block.args):
        node_id = f"arg{i}"
        producer[arg] = (node_id, "0")
        add(node_id, "Input", "", [{"key": "index", "value": str(i)}], [],
            [{"id": "0", "attrs": [{"key": "tensor_shape", "value": _type_text(arg.type)}]}])
    for k, op in enumerate(o for o in fn.walk() if o is not fn):
        node_id = f"op{k}"
        label, file, line, _ = _node_path(op)
        scopes = label.split("/")[:-1] if label else []
        edges = [{"sourceNodeId": producer[v][0], "sourceNodeOutputId": producer[v][1],
                  "targetNodeInputId": str(j)}
                 for j, v in enumerate(op.operands) if v in producer]
        attrs = [{"key": "op", "value": op.name}]
        attrs += [{"key": name, "value": str(value)[:200]}
                  for name, value in sorted(op.properties.items())]
        if file:
            attrs.append({"key": "source", "value": f"{file}:{line}"})
        outputs = []
        for j, r in enumerate(op.results):
            producer[r] = (node_id, str(j))
            outputs.append({"id": str(j), "attrs": [{"key": "tensor_shape",
                                                     "value": _type_text(r.type)}]})
        add(node_id, op.name.removeprefix("df.").removeprefix("func."), "/".join(scopes),
            attrs, edges, outputs)
    return {"id": graph_id, "nodes": nodes}


def collection_json(compiler_ir, stages=DF_STAGES) -> dict:
    """The df `stages` of a `compiler_ir(...)` as a Model Explorer `GraphCollection`."""
    from ...ir.printing import parse_module
    graphs = [graph_json(parse_module(compiler_ir.text(stage)), stage) for stage in stages]
    return {"label": "flowjit", "graphs": graphs, "graphSorting": "node_count_desc"}


def write_stages(compiler_ir, folder: str, stages=DF_STAGES) -> list:
    """Write `<stage>.json` per df stage and `stablehlo.mlir` (when the function lowers to
    StableHLO) into `folder`; returns the paths."""
    os.makedirs(folder, exist_ok=True)
    paths = []
    for stage in stages:
        path = os.path.join(folder, f"{stage}.json")
        with open(path, "w") as f:
            json.dump(collection_json(compiler_ir, (stage,)), f)
        paths.append(path)
    if "stablehlo" in compiler_ir.stages:
        path = os.path.join(folder, "stablehlo.mlir")
        with open(path, "w") as f:
            f.write(compiler_ir.text("stablehlo"))
        paths.append(path)
    return paths
