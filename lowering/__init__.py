"""The lowering layer: df -> executor Plan (`executor.py`) and df -> StableHLO (`stablehlo/`).
See ARCHITECTURE.md."""
