"""More than one device: DTensor, MirroredStrategy, sharded calls."""
