"""Fused ops have no public TF API: only the `remapper` pass creates them (from matmul or
conv2d + bias + activation), after tracing and differentiation. `None` in API_RENAMED marks an
internal op for the registry coverage test."""
from __future__ import annotations

API_RENAMED = {"fused_matmul": None, "fused_conv2d": None}
