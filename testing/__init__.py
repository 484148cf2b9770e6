"""Testing tools shipped with flowjit: the differential fuzzer (`python -m flowjit.testing.fuzz`)."""
