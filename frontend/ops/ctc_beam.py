"""`tf.nn.ctc_beam_search_decoder`: the CTC prefix beam search of TF's CTCBeamSearchDecoder
(runtime/kernels/ctc_beam.py), its paths returned as SparseTensors. TF 2's API never merges
repeated labels of a path (a repeat needs a blank between, as CTC defines)."""
from __future__ import annotations

from ...ir import dtypes as D
from ..composite.sparse_tensor import SparseTensor
from ..eager.dispatch import apply, convert_to_tensor, op_error
from ..export import tf_export

_OP = "CTCBeamSearchDecoder"


@tf_export("nn.ctc_beam_search_decoder")
def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1):
    """([top_paths SparseTensors [batch, longest path]], log probabilities [batch,
    top_paths]): the `top_paths` most likely label sequences of each batch entry of the
    logits `inputs` [max_time, batch, classes] (blank: the last class) within its
    `sequence_length`, searched with `beam_width` prefixes."""
    x = convert_to_tensor(inputs)
    lengths = convert_to_tensor(sequence_length, dtype_hint=D.int32)
    if lengths.dtype != D.int32:
        raise op_error(_OP, f"cannot compute {_OP} as input #1(zero-based) was expected to be "
                            f"a int32 tensor but is a {lengths.dtype.name} tensor",
                       dtype_error=True)
    out = apply("ctc_beam_search_decoder", (x, lengths),
                {"beam_width": int(beam_width), "top_paths": int(top_paths),
                 "merge_repeated": False})
    decoded = [SparseTensor(*out[3 * p:3 * p + 3]) for p in range(int(top_paths))]
    return decoded, out[-1]
