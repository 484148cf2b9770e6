"""Compiler stages for Google's Model Explorer (`pip install ai-edge-model-explorer`, the
`explorer` extra): StableHLO as it is (Model Explorer reads `.mlir` itself), and df stages as
Model Explorer's JSON graph collection: one node per op (nested ops too), named after the
op's node, name scopes as layers (the node's `<function>/<scope>/...` path), edges from each
operand's producer, the op's attributes, result types and source line shown on it.
Per-node data (`<stage>.pass_ms.json`, Model Explorer's `ModelNodeData`) overlays each node
with the milliseconds of the pass runs that created, changed or removed it, from the
`pass_report()`.

    from flowjit.frontend.tools.model_explorer import write_stages
    write_stages(f.compiler_ir(x), "out/")      # out/stablehlo.mlir, out/dataflow.json, ...
    model-explorer out/optimized.json --node_data_paths=out/optimized.pass_ms.json

The JSON follows Model Explorer's `graph_builder` dataclasses field for field; nothing here
imports Model Explorer.
"""
from __future__ import annotations

import json
import os
import re

DF_STAGES = ("dataflow", "optimized")


def _node_path(op):
    from ...ir.importer import location_parts
    parts = location_parts(op.location)
    return parts if parts is not None else (None, None, None, None)


def _type_text(ty) -> str:
    return str(ty).replace("!", "")


def graph_json(module, graph_id: str) -> dict:
    """One df module as a Model Explorer `Graph` (a JSON dict)."""
    return _graph_and_labels(module, graph_id)[0]


def _graph_and_labels(module, graph_id: str):
    """The `Graph` and each op node's location label (`<function>/<scope>/.../<node>`)."""
    from xdsl.dialects import func
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    nodes, producer, labels = [], {}, {}

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
        labels[node_id] = label
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
    return {"id": graph_id, "nodes": nodes}, labels


_SSA_NAME = re.compile(r"%[\w.#]+")
_LOC_LABEL = re.compile(r'loc\("([^"]+)"')


def _op_lines(text: str) -> set:
    """The module's op lines with SSA names blanked: a pass that only renumbers values
    leaves them equal."""
    return {_SSA_NAME.sub("%", line.strip()) for line in text.splitlines()}


def pass_ms_by_label(compiler_ir, stage: str = "dataflow") -> dict:
    """Location label -> milliseconds of the pass runs whose output differs from their input
    on that op's line (it was created, changed or removed), from `pass_report()`."""
    before = _op_lines(compiler_ir.text(stage))
    ms: dict = {}
    for record in compiler_ir.pipeline_report().records:
        after = _op_lines(record.ir_after)
        touched = {m.group(1) for line in before ^ after for m in [_LOC_LABEL.search(line)] if m}
        for label in touched:
            ms[label] = ms.get(label, 0.0) + record.seconds * 1e3
        before = after
    return ms


def node_data_json(compiler_ir, stage: str) -> dict:
    """Per-pass milliseconds on `stage`'s nodes as a Model Explorer `ModelNodeData` (keyed by
    graph id; results keyed by node id), colored from white (0 ms) to red (the most)."""
    from ...ir.printing import parse_module
    _, labels = _graph_and_labels(parse_module(compiler_ir.text(stage)), stage)
    ms = pass_ms_by_label(compiler_ir)
    results = {node_id: {"value": round(ms.get(label, 0.0), 4)}
               for node_id, label in labels.items() if label is not None}
    return {stage: {"name": "pass time (ms)", "results": results,
                    "gradient": [{"stop": 0, "bgColor": "#ffffff"},
                                 {"stop": 1, "bgColor": "#ff6a4d"}]}}


def collection_json(compiler_ir, stages=DF_STAGES) -> dict:
    """The df `stages` of a `compiler_ir(...)` as a Model Explorer `GraphCollection`."""
    from ...ir.printing import parse_module
    graphs = [graph_json(parse_module(compiler_ir.text(stage)), stage) for stage in stages]
    return {"label": "flowjit", "graphs": graphs, "graphSorting": "node_count_desc"}


def write_stages(compiler_ir, folder: str, stages=DF_STAGES) -> list:
    """Write `<stage>.json` and its pass-time overlay `<stage>.pass_ms.json` per df stage and
    `stablehlo.mlir` (when the function lowers to StableHLO) into `folder`; returns the
    paths."""
    os.makedirs(folder, exist_ok=True)
    paths = []
    for stage in stages:
        for name, data in ((f"{stage}.json", collection_json(compiler_ir, (stage,))),
                           (f"{stage}.pass_ms.json", node_data_json(compiler_ir, stage))):
            path = os.path.join(folder, name)
            with open(path, "w") as f:
                json.dump(data, f)
            paths.append(path)
    if "stablehlo" in compiler_ir.stages:
        path = os.path.join(folder, "stablehlo.mlir")
        with open(path, "w") as f:
            f.write(compiler_ir.text("stablehlo"))
        paths.append(path)
    return paths


BROWSERS = ("chromium-headless-shell", "chromium", "google-chrome")


def render(graph_path: str, node_data_paths=(), screenshot: str | None = None,
           port: int | None = None, settle_ms: int = 2000) -> str:
    """Open `graph_path` (with per-node data files) in Model Explorer's own web app, served by
    its own server (on `port`, else a free one), in headless Chromium (a `BROWSERS` binary on
    PATH, else Playwright's bundled one); returns the page's text once it has laid out, and
    saves a screenshot. Needs the `explorer` extra and a Chromium."""
    import shutil
    import subprocess
    import sys
    import time
    import urllib.request

    from model_explorer.config import ModelExplorerConfig
    from playwright.sync_api import sync_playwright

    if port is None:     # a free one: another render (or server) may hold any fixed port
        import socket
        with socket.socket() as probe:
            probe.bind(("localhost", 0))
            port = probe.getsockname()[1]
    config = ModelExplorerConfig()
    config.add_model_from_path(os.path.abspath(graph_path))
    for path in node_data_paths:
        config.add_node_data_from_path(os.path.abspath(path))
    server = subprocess.Popen(
        [sys.executable, "-c", "from model_explorer import cmdline; cmdline.main()",
         "--no_open_in_browser", "--skip_health_check", f"--port={port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://localhost:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url, timeout=1)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("Model Explorer's server did not start") from None
                time.sleep(0.2)
        executable = next(filter(None, map(shutil.which, BROWSERS)), None)
        with sync_playwright() as p:
            # WebGL in software: the graph is drawn on a canvas
            browser = p.chromium.launch(executable_path=executable, args=[
                "--no-sandbox", "--use-gl=swiftshader", "--enable-unsafe-swiftshader"])
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                page.goto(f"{url}?data={config.to_url_param_value()}")
                page.wait_for_selector("text=GRAPH INFO", timeout=60_000)
                page.wait_for_timeout(settle_ms)
                if screenshot:
                    page.screenshot(path=screenshot)
                return page.inner_text("body")
            finally:
                browser.close()
    finally:
        server.terminate()
        server.wait()


def main(argv=None):
    """`python -m flowjit.frontend.tools.model_explorer GRAPH.json [NODE_DATA.json ...]
    --screenshot out.png`: render in headless Chromium and print the page's text."""
    import argparse
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("graph")
    parser.add_argument("node_data", nargs="*")
    parser.add_argument("--screenshot")
    args = parser.parse_args(argv)
    print(render(args.graph, args.node_data, args.screenshot))


if __name__ == "__main__":
    main()
