"""`tf.saved_model.save` / `load`: restored functions and signatures give NumPy's numbers on the
graph executor and under XLA, `None` batch dims stay polymorphic, variables are tracked and
fine-tune under GradientTape, a fresh process loads the model without the defining code, the
StableHLO artifact runs on its own (and under IREE when the `interop` extra is installed), and
damaged files raise clear errors. TF 2.21's behaviour is recorded in comments."""
import json
import os
import textwrap

import numpy as np
import pytest

import flowjit as tf
from helpers import assert_close, run_script
from saved_model_forge import resign

W = np.array([[0.5, -1.0], [1.5, 0.25], [-0.5, 2.0]], np.float32)
B = np.array([0.1, -0.2], np.float32)


class Dense(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(W, name="w")
        self.b = tf.Variable(B, name="b")
        self.scale = tf.Variable(2.0, trainable=False, name="scale")

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def __call__(self, x):
        return tf.nn.relu(x @ self.w + self.b)

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="inp"),
                                  tf.TensorSpec([], tf.float32)])
    def two(self, x, s):
        return {"y": x * s * self.scale, "z": tf.reduce_sum(x)}


def _ref(x):
    return np.maximum(x @ W + B, 0)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("sm") / "dense")
    model = Dense()
    tf.saved_model.save(model, path, signatures={"serve": model.two})
    return path


def test_layout(saved):
    files = sorted(os.path.relpath(os.path.join(d, f), saved)
                   for d, _, fs in os.walk(saved) for f in fs)
    assert "saved_model.json" in files and "variables/variables.safetensors" in files
    assert any(f.endswith(".mlir") for f in files)
    manifest = json.load(open(os.path.join(saved, "saved_model.json")))
    fn = manifest["functions"][manifest["root"]["functions"]["__call__"][0]]
    assert fn["input_key"] == {"tuple": [{"tensor": ["float32", [None, 3]]}]}
    assert fn["stablehlo"] is None          # a None dim: no static artifact
    text = open(os.path.join(saved, "functions", "fn_0.mlir")).read()
    assert "df.matmul" in text and "!df.resource<tensor<3x2xf32>>" in text


@pytest.mark.parametrize("jit", [False, True], ids=["executor", "xla"])
def test_load_runs_polymorphic(saved, jit):
    loaded = tf.saved_model.load(saved, jit_compile=jit)
    rng = np.random.default_rng(0)
    for batch in (1, 4):       # None batch dim: one saved function, any batch
        x = rng.normal(size=(batch, 3)).astype(np.float32)
        assert_close(loaded(x).numpy(), _ref(x))
    # the tracked variables, in TF's order (sorted attribute names)
    assert [v.name for v in loaded.variables] == ["b:0", "scale:0", "w:0"]
    assert [v.name for v in loaded.trainable_variables] == ["b:0", "w:0"]
    # TF 2.21: a signature takes keyword inputs named by the TensorSpec (else the argument)
    # and returns a dict.
    out = loaded.signatures["serve"](inp=np.ones((2, 3), np.float32), s=np.float32(3.0))
    assert sorted(out) == ["y", "z"]
    serve = loaded.signatures["serve"]
    assert serve.structured_input_signature == ((), {
        "inp": tf.TensorSpec([None, 3], tf.float32, "inp"), "s": tf.TensorSpec([], tf.float32, "s")})
    assert sorted(serve.structured_outputs) == ["y", "z"] and len(serve.variables) == 1
    cf = loaded.__call__.get_concrete_function(tf.TensorSpec([None, 3], tf.float32))
    assert_close(cf(np.ones((1, 3), np.float32)).numpy(), _ref(np.ones((1, 3), np.float32)))
    assert_close(out["y"].numpy(), np.full((2, 3), 6.0, np.float32))
    assert float(out["z"]) == 6.0
    # TF 2.21: TypeError "Binding inputs to tf.function failed due to `Can not cast
    # TensorSpec(shape=(2, 4)...) to TensorSpec(shape=(None, 3)...)`"
    with pytest.raises(TypeError, match=r"Binding inputs .*\(2, 4\).*\(None, 3\)"):
        loaded(np.ones((2, 4), np.float32))
    with pytest.raises(TypeError, match="unexpected keyword argument 'x'"):
        loaded.signatures["serve"](x=np.ones((1, 3), np.float32), s=1.0)


def test_default_signature_output_names(tmp_path):
    class One(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(2.0)

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def f(self, x):
            return x * self.w

    tf.saved_model.save(One(), str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    # TF 2.21: one tf.function -> 'serving_default', output named 'output_0'.
    assert list(loaded.signatures) == ["serving_default"]
    out = loaded.signatures["serving_default"](x=np.ones(2, np.float32))
    assert list(out) == ["output_0"] and list(out["output_0"].numpy()) == [2.0, 2.0]


def test_fine_tune_loaded_variables(saved):
    loaded = tf.saved_model.load(saved)
    x = np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0]], np.float32)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(loaded(x)))
    gw, gb = tape.gradient(loss, [loaded.w, loaded.b])
    pre = x @ W + B
    dpre = 2 * np.maximum(pre, 0) * (pre > 0)
    assert_close(gw.numpy(), x.T @ dpre, rtol=1e-5)
    assert_close(gb.numpy(), dpre.sum(0), rtol=1e-5)
    tf.optimizers.SGD(0.1).apply_gradients([(gw, loaded.w), (gb, loaded.b)])
    assert_close(loaded.w.numpy(), W - 0.1 * (x.T @ dpre), rtol=1e-5)
    # the restored function reads the updated variables
    assert_close(loaded(x).numpy(), np.maximum(x @ loaded.w.numpy() + loaded.b.numpy(), 0))


def test_nested_modules_and_lazy_jit_function(tmp_path):
    class Block(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Dense(), {"extra": tf.Variable(np.float32(1.0))}]

        @tf.function(jit_compile=True)
        def __call__(self, x):
            return tf.reduce_sum(self.layers[0](x)) + self.layers[1]["extra"]

    block = Block()
    block.layers.append([block])          # a cycle is saved once
    x = np.ones((2, 3), np.float32)
    expected = _ref(x).sum() + 1.0
    assert_close(block(x).numpy(), expected)      # traced once, saved with that shape
    tf.saved_model.save(block, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    assert_close(loaded(x).numpy(), expected)
    assert len(loaded.variables) == 4 and float(loaded.layers[1]["extra"]) == 1.0
    assert_close(loaded.layers[0](x).numpy(), _ref(x))
    manifest = json.load(open(tmp_path / "saved_model.json"))
    fid = manifest["root"]["functions"]["__call__"][0]
    assert manifest["functions"][fid]["jit_compile"] is True
    assert manifest["functions"][fid]["stablehlo"] is not None


def test_stablehlo_artifact_runs_alone(tmp_path):
    from flowjit.lowering.stablehlo import portable
    from flowjit.runtime import xla
    m = Dense()
    static = tf.function(lambda x: m(x), input_signature=[tf.TensorSpec([2, 3], tf.float32)])
    m.static = static
    tf.saved_model.save(m, str(tmp_path))
    manifest = json.load(open(tmp_path / "saved_model.json"))
    entry = manifest["functions"][manifest["root"]["functions"]["static"][0]]
    art = entry["stablehlo"]
    assert art["version"] == portable.target_version()
    module = portable.deserialize(open(tmp_path / art["file"], "rb").read())
    exe = xla.XlaExecutable(xla.compile_module(module), art["num_results"], [], {})
    x = np.array([[1.0, -2.0, 0.5], [3.0, 0.0, -1.0]], np.float32)
    variables = {c["variable"]: v for c, v in zip(entry["captures"], [W, B])}
    args = [x] + [variables[c["variable"]] for c in entry["captures"]]
    out = exe([xla.to_device(a) for a in args])
    assert_close(np.asarray(out[0]), _ref(x))


def test_iree_runs_the_artifact(tmp_path):
    ic = pytest.importorskip("iree.compiler")
    rt = pytest.importorskip("iree.runtime")
    from flowjit.lowering.stablehlo import portable
    m = Dense()
    m.static = tf.function(lambda x: m(x), input_signature=[tf.TensorSpec([2, 3], tf.float32)])
    tf.saved_model.save(m, str(tmp_path))
    manifest = json.load(open(tmp_path / "saved_model.json"))
    entry = manifest["functions"][manifest["root"]["functions"]["static"][0]]
    module = portable.deserialize(open(tmp_path / entry["stablehlo"]["file"], "rb").read())
    vmfb = ic.compile_str(str(module), target_backends=["llvm-cpu"], input_type="stablehlo",
                          extra_args=["--iree-llvmcpu-target-cpu=host"])
    ctx = rt.SystemContext(config=rt.Config("local-task"))
    ctx.add_vm_module(rt.VmModule.copy_buffer(ctx.instance, vmfb))
    x = np.array([[1.0, -2.0, 0.5], [3.0, 0.0, -1.0]], np.float32)
    # IREE names the loaded module after the MLIR module's symbol (`module @jit_<function>`)
    name = str(module.operation.attributes["sym_name"]).strip('"')
    assert name.startswith("jit_")
    out = getattr(ctx.modules, name)["main"](x, W, B)
    out = out[0] if isinstance(out, (list, tuple)) else out
    assert_close(np.asarray(out.to_host() if hasattr(out, "to_host") else out), _ref(x))


def test_fresh_process_without_defining_code(saved, tmp_path):
    script = tmp_path / "use.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        import numpy as np
        import flowjit as tf
        loaded = tf.saved_model.load({saved!r})
        assert "test_saved_model" not in sys.modules
        x = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0], [0.0, 0.0, 1.0]], np.float32)
        print(loaded(x).numpy().tolist())
        print([v.name for v in loaded.trainable_variables])
    """))
    r = run_script(script)
    assert r.returncode == 0, r.stderr
    out, names = r.stdout.strip().splitlines()
    x = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0], [0.0, 0.0, 1.0]], np.float32)
    assert_close(np.array(eval(out), np.float32), _ref(x))   # a list literal printed above
    assert eval(names) == ["b:0", "w:0"]


def _copy(src, dst):
    import shutil
    shutil.copytree(src, dst)
    return str(dst)


def test_damaged_files(saved, tmp_path):
    with pytest.raises(OSError, match="SavedModel file does not exist at"):   # TF 2.21's text
        tf.saved_model.load(str(tmp_path / "missing"))

    def damaged(name, rel, change):
        path = _copy(saved, tmp_path / name)
        full = os.path.join(path, rel)
        data = open(full, "rb").read()
        open(full, "wb").write(change(data))
        return path

    cases = [
        ("manifest", "saved_model.json", lambda d: d[:-10]),
        ("traversal", "saved_model.json",
         lambda d: d.replace(b'"fn_0"', b'"../../etc/x"')),
        ("df syntax", "functions/fn_0.mlir", lambda d: d.replace(b"df.matmul", b"df.matmul(")),
        ("df types", "functions/fn_0.mlir",
         lambda d: d.replace(b"tensor<?x2xf32>", b"tensor<?x7xf32>")),
        ("unknown op", "functions/fn_0.mlir", lambda d: d.replace(b"df.relu", b"df.system")),
        ("variables", "variables/variables.safetensors", lambda d: d[:-3]),
    ]
    for name, rel, change in cases:
        with pytest.raises(tf.errors.DataLossError, match="damaged|not a valid"):
            tf.saved_model.load(damaged(name.replace(" ", "_"), rel, change))


def test_variable_of_other_dtype_in_file(saved, tmp_path):
    from flowjit.runtime import safetensors
    path = _copy(saved, tmp_path / "retyped")
    file = os.path.join(path, "variables", "variables.safetensors")
    tensors, meta = safetensors.read(file)
    tensors["w/.ATTRIBUTES/VARIABLE_VALUE"] = tensors["w/.ATTRIBUTES/VARIABLE_VALUE"].astype(
        np.float64)
    safetensors.write(file, tensors, meta)
    with pytest.raises(tf.errors.DataLossError, match="checksum mismatch"):
        tf.saved_model.load(path)
    resign(path)
    with pytest.raises(tf.errors.DataLossError, match="expects .*float64"):
        tf.saved_model.load(path)


def test_untracked_variable(tmp_path):
    free = tf.Variable(1.0)

    class Uses(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def f(self, x):
            return x * free

    # TF 2.21: AssertionError with this first sentence.
    with pytest.raises(AssertionError, match="Tried to export a function which references an "
                                             "'untracked' resource"):
        tf.saved_model.save(Uses(), str(tmp_path))


def test_checkpoint_restores_saved_model_variables(saved):
    model = Dense()
    model.w.assign(np.zeros_like(W))
    # TF: the SavedModel's variables are a checkpoint of the saved object.
    tf.train.Checkpoint(model).restore(os.path.join(saved, "variables", "variables")) \
        .assert_consumed()
    assert_close(model.w.numpy(), W)


class Looping(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(np.array([0.5, -1.5, 2.0]))

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float64), tf.TensorSpec([], tf.int32)])
    def __call__(self, x, n):
        y = x * self.w
        if tf.reduce_sum(y) > 0:
            y = y + 1.0
        else:
            y = y - 1.0
        i = 0
        while i < n:
            y = tf.cond(i > 0, lambda: y * 0.5 + x, lambda: y * self.w)
            i += 1
        return tf.reduce_sum(tf.square(y))


def _looping_ref(x, n, w):
    y = x * w
    y = y + 1.0 if y.sum() > 0 else y - 1.0
    for i in range(n):
        y = y * 0.5 + x if i > 0 else y * w
    return np.sum(y * y)


def test_df_text_round_trip_is_exact():
    from flowjit.ir.exporter import export_graph
    from flowjit.ir.importer import import_graph
    from flowjit.ir.printing import parse_module, print_module
    cf = Looping().__call__.get_concrete_function()
    text = print_module(cf.dataflow_module())
    assert print_module(import_graph(export_graph(parse_module(text)), cf.name)) == text


@pytest.mark.parametrize("jit", [False, True], ids=["executor", "xla"])
def test_control_flow_and_gradient_after_load(tmp_path, jit):
    tf.saved_model.save(Looping(), str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path), jit_compile=jit)
    x, w = np.array([1.0, 2.0, -0.5]), np.array([0.5, -1.5, 2.0])
    for n in (0, 3):
        assert_close(loaded(x, np.int32(n)).numpy(), _looping_ref(x, n, w))
    with tf.GradientTape() as tape:
        loss = loaded(x, np.int32(3))
    grad = tape.gradient(loss, loaded.w).numpy()
    eps = 1e-6
    numeric = [(_looping_ref(x, 3, w + eps * e) - _looping_ref(x, 3, w - eps * e)) / (2 * eps)
               for e in np.eye(3)]
    assert_close(grad, numeric, rtol=1e-6, atol=1e-6)


def test_function_traced_with_a_python_list_argument_loads(tmp_path):
    # TF 2.21: the loaded function takes the list again, of tensors or of Python numbers
    # (f([3., 4.]) -> 10.0, f([1.0, 2.0]) -> 4.0), and refuses another structure (ValueError)
    class Pair(tf.Module):
        @tf.function
        def f(self, xs):
            return xs[0] * 2.0 + xs[1]

    m = Pair()
    assert float(m.f([tf.constant(1.0), tf.constant(5.0)])) == 7.0
    tf.saved_model.save(m, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    assert float(loaded.f([tf.constant(3.0), tf.constant(4.0)])) == 10.0
    assert float(loaded.f([1.0, 2.0])) == 4.0
    with pytest.raises(ValueError, match="Could not find matching concrete function to call "
                                         "loaded from the SavedModel"):
        loaded.f([tf.constant(1.0), tf.constant(2.0), tf.constant(3.0)])
