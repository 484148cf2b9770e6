"""StableHLO portable artifacts: versioned bytecode any StableHLO consumer can read back.

A SavedModel stores each statically shaped function's lowered `@main` this way. The target
version is the one 12 weeks of StableHLO releases can read (the window JAX's export uses), so
consumers built on an older StableHLO (IREE, older jaxlibs) load it too.
"""
from __future__ import annotations

from ...runtime.jax_internals import hlo, ir, make_ir_context


def target_version() -> str:
    return hlo.get_version_from_compatibility_requirement(
        hlo.StablehloCompatibilityRequirement.WEEK_12)


def serialize(module, debug_info: bool = False) -> bytes:
    """The portable artifact of a lowered jaxlib `ir.Module`; without `debug_info` its
    source locations (paths of the saving machine) are left out, by printing and parsing it
    again without them."""
    if not debug_info:
        text = module.operation.get_asm(enable_debug_info=False)
        with make_ir_context() as ctx:
            module = ir.Module.parse(text, ctx)
            return hlo.serialize_portable_artifact(module, target_version())
    return hlo.serialize_portable_artifact(module, target_version())


def deserialize(data: bytes):
    """A jaxlib `ir.Module` (StableHLO) from a portable artifact; ValueError if malformed."""
    try:
        return hlo.deserialize_portable_artifact(make_ir_context(), data)
    except Exception as e:   # MLIR reports a bad artifact as a generic error
        raise ValueError(f"not a StableHLO portable artifact: {e}") from None


def supported_versions() -> tuple[str, str]:
    """(oldest, newest) artifact version this jaxlib reads."""
    return hlo.get_minimum_version(), hlo.get_current_version()
