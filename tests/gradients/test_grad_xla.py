"""A sample of the gradient functions traced with unknown dims and compiled with XLA
(jit_compile=True): the static pads, gathers, scatters and windowed convolutions they build
must all lower. Compared with finite differences, as the other gradient tests are."""
import pytest

import test_grad_array
import test_grad_linalg
import test_grad_nn
import test_grad_reduce
from gradcheck import check_graph

PICKED = {
    test_grad_nn: ["conv2d-valid", "conv2d-groups2", "depthwise_conv2d-s2",
                   "conv2d_transpose-same-s2", "max_pool-same", "avg_pool-nchw",
                   "softmax_cross_entropy_with_logits"],
    test_grad_array: ["strided_slice-basic", "strided_slice-neg-stride", "gather-batch",
                      "pad-reflect", "tile-unknown", "concat-all-unknown", "sort-axis0-desc",
                      "squeeze-unknown"],
    test_grad_linalg: ["einsum-...ij,...jk->...ik-2123x332", "einsum-ii->i-33", "top_k-k2"],
    test_grad_reduce: ["reduce_prod-rank3-axis(1,)", "reduce_mean-rank2-axis(1,)"],
}
CASES = [c for mod, ids in PICKED.items() for c in mod.CASES if c.id in ids]


def test_picked_cases_exist():
    assert sorted(c.id for c in CASES) == sorted(i for ids in PICKED.values() for i in ids)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_gradient_compiles_with_xla(case):
    check_graph(case, jit_compile=True)
