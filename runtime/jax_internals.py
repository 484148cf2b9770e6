"""The one module that imports jax's and jaxlib's private parts (`jax._src...`, `jaxlib.mlir...`).

Those paths move between jax releases without notice; keeping every such import here means a
jax upgrade touches one file. The rest of flowjit imports the names below from this module:
the MLIR Python bindings (`ir`) and dialects (`hlo`, `chlo`, `mlir_func`), jax's MLIR context
and constant builders, the bytecode writer, the StableHLO -> HLO converter, and the raw
device-put entry point. Importing this module imports jax, so `runtime/xla.py` and the
frontend import it lazily (flowjit's own import stays free of jax).
"""
from __future__ import annotations

import jaxlib.mlir.dialects.chlo as chlo  # noqa: F401  (re-exported)
import jaxlib.mlir.dialects.stablehlo as hlo  # noqa: F401
from jax._src import core as _core
from jax._src import tree_util as _tree_util
from jax._src.interpreters import mlir as _jmlir
from jax._src.interpreters import pxla as _pxla
from jax._src.lib import _jax
from jax._src.lib import xla_client  # noqa: F401
from jax._src.lib.mlir import ir  # noqa: F401
from jaxlib.mlir.dialects import func as mlir_func  # noqa: F401
from jaxlib.mlir.dialects import sdy  # noqa: F401
from jax._src import array as _array
from jax._src import sharding_impls as _sharding_impls
from jax._src import xla_bridge as _xla_bridge

make_ir_context = _jmlir.make_ir_context      # an MLIR context with jax's dialects loaded
ir_constant = _jmlir.ir_constant              # a NumPy array -> stablehlo.constant
module_to_bytecode = _jmlir.module_to_bytecode
ShapedArray = _core.ShapedArray
batched_device_put = _jax.batched_device_put
# multi-device programs (runtime/spmd.py)
ArrayImpl = _array.ArrayImpl
parse_flatten_op_sharding = _sharding_impls.parse_flatten_op_sharding
backends_are_initialized = _xla_bridge.backends_are_initialized
# jax.jit's C++ dispatch (runtime/xla.py's cached calls go through it)
pjit = _jax.pjit
PjitFunctionCache = _jax.PjitFunctionCache
MeshExecutableFastpathData = _pxla.MeshExecutableFastpathData
JitGlobalCppCacheKeys = _pxla.JitGlobalCppCacheKeys
cc_shard_arg = _pxla.cc_shard_arg
tree_structure = _tree_util.tree_structure
dispatch_registry = _tree_util.dispatch_registry


def hlo_computation(module):
    """The XlaComputation (HLO before XLA's optimizations) of a lowered StableHLO module;
    its op metadata comes from the MLIR locations (see lowering/stablehlo/core.py)."""
    return _jax.mlir.mlir_module_to_xla_computation(
        module_to_bytecode(module), use_tuple_args=False, return_tuple=False)


def hlo_text(module, metadata: bool = True) -> str:
    """HLO text of a lowered module, with or without each instruction's `metadata={...}`."""
    opts = xla_client.hlo.HloPrintOptions()
    opts.print_metadata = metadata
    return hlo_computation(module).get_hlo_module().to_string(opts)
