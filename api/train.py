"""TF's `tf.train`: checkpoints."""
from flowjit.frontend.checkpoint import (Checkpoint, CheckpointManager, latest_checkpoint,
                                         list_variables)
