"""TF's `tf.io`: the file functions input pipelines use (`read_file`, `write_file`), TFRecord files,
parsing `tf.train.Example` protos and TensorProto bytes."""
import flowjit.frontend.data.files  # noqa: F401  (exports its functions)
import flowjit.frontend.data.tfrecord  # noqa: F401
import flowjit.frontend.ops.parsing  # noqa: F401
from flowjit.frontend.export import install as _install

_install(globals(), "io")
