"""State that outlives a call: variables, modules, optimizers, checkpoints, SavedModels."""
