"""Testing tools shipped with flowjit: the differential fuzzer (`python -m flowjit.testing.fuzz`),
the `flowjit-opt` mutation test (`opt_mutants`) and the lit configuration for FileCheck tests
(`python -m flowjit.testing.filecheck DIR --load-plugin X`)."""
