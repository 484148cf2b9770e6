"""`tf.function`: tracing into FuncGraphs, trace types, ConcreteFunctions, compiling and calling them, the compiler-IR API."""
