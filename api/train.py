"""TF's `tf.train`: checkpoints, and the `Example` protocol messages."""
from flowjit.frontend.state.checkpoint import Checkpoint, CheckpointManager, TrackableView, latest_checkpoint
from flowjit.frontend.state.checkpoint_reader import CheckpointReader, CheckpointState, get_checkpoint_state, list_variables, load_checkpoint, load_variable
import flowjit.frontend.data.example_messages  # noqa: F401  (exports the messages)
from flowjit.frontend.export import install as _install

_install(globals(), "train")
