"""`import flowjit` loads no jax and no xDSL: eager ops need neither, the graph executor needs
xDSL (for the df module) but not jax, and jax loads on the first XLA compile. Checked in a
fresh interpreter (this one has both already)."""
import subprocess
import sys

PROGRAM = """
import sys
def jax_loaded():
    return sorted(m for m in sys.modules if m.split(".")[0] in ("jax", "jaxlib"))[:3]
def xdsl_loaded():
    return "xdsl" in sys.modules
import flowjit as tf
print("import", jax_loaded(), xdsl_loaded())
x = tf.constant([1., -2.]) * 3.
assert x.numpy().tolist() == [3., -6.], x
print("eager", jax_loaded(), xdsl_loaded())
f = tf.function(lambda a: a * 2. + 1.)
assert f(x).numpy().tolist() == [7., -11.]
print("executor", jax_loaded())
g = tf.function(lambda a: a * 2. + 1., jit_compile=True)
assert g(x).numpy().tolist() == [7., -11.]
print("xla", "jax" in sys.modules)
"""


def test_jax_loads_on_the_first_xla_compile_only():
    proc = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines() == ["import [] False", "eager [] False", "executor []",
                                      "xla True"]
