"""Command-line tools and plugin loading (`flowjit-opt`)."""
