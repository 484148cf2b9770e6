"""Control flow in graphs and eagerly: cond/while_loop/case, TensorArray, map_fn/scan."""
