"""TF's `tf.train`: checkpoints."""
from flowjit.frontend.state.checkpoint import Checkpoint, CheckpointManager, latest_checkpoint
from flowjit.frontend.state.checkpoint_reader import CheckpointReader, CheckpointState, get_checkpoint_state, list_variables, load_checkpoint, load_variable
