"""lowering layer (see DESIGN.md)."""
