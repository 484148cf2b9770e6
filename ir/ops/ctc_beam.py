"""`ctc_beam_search_decoder`: the CTC prefix beam search over logits [max_time, batch,
classes] (the last class the blank). Its outputs, per path kept (`top_paths`): the decoded
labels as a SparseTensor's indices [n, 2], values [n] and dense shape [2] (int64), then the
paths' log probabilities [batch, top_paths]. The label counts depend on the values, so XLA
refuses it, as TF's (which has no XLA kernel); not differentiable, as TF's."""
from __future__ import annotations

from .. import dtypes as D
from ..infer import TT, check_dtype
from ..registry import InferenceError, op


@op("ctc_beam_search_decoder", ("inputs", "sequence_length"),
    attrs=(("beam_width", "int"), ("top_paths", "int"), ("merge_repeated", "bool", True)),
    differentiable=False)
def _ctc_beam_search_decoder(types, attrs):
    """inputs [max_time, batch, classes] float32/float64, sequence_length [batch] int32."""
    x, lengths = types
    check_dtype(x, (D.float32, D.float64))
    if lengths.dtype != D.int32:
        raise InferenceError(f"sequence_length must be int32, got {lengths.dtype.name}")
    for what in ("beam_width", "top_paths"):
        if attrs[what] < 1:
            raise InferenceError(f"Value for attr '{what}' of {attrs[what]} must be at least "
                                 f"minimum 1")
    batch = None if x.shape is None or len(x.shape) != 3 else x.shape[1]
    path = (TT(D.int64, (None, 2)), TT(D.int64, (None,)), TT(D.int64, (2,)))
    return path * attrs["top_paths"] + (TT(x.dtype, (batch, attrs["top_paths"])),)
