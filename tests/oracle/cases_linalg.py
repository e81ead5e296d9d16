"""Oracle cases for the contractions: mm, bmm, matmul over every rank combination (1-D
operands, batch broadcasting), addmm, linear and baddbmm, in several dtypes, with
non-contiguous and empty operands, and the dtype and shape errors torch raises."""
import torch
import torch.nn.functional as F

from oracle_case import Case, randn, randint
from single_op import TRANSPOSE_A, SingleOpCases, single_op

LOW = dict(rtol=2e-2, atol=2e-2)
CASES = SingleOpCases(rtol=1e-5, atol=1e-5)
add, add_error = CASES.add, CASES.add_error


add("mm_f32", "mm(%a, %b)", [randn(3, 4), randn(4, 5)], torch.mm)
add("mm_f64", "mm(%a, %b)", [randn(3, 4, dtype=torch.float64), randn(4, 2, dtype=torch.float64)], torch.mm)
add("mm_i64", "mm(%a, %b)", [randint(-5, 5, 3, 4), randint(-5, 5, 4, 2)], torch.mm)
add("mm_bf16", "mm(%a, %b)", [randn(3, 4, dtype=torch.bfloat16), randn(4, 2, dtype=torch.bfloat16)], torch.mm, **LOW)
add("mm_transposed", "mm(%t, %b)", [randn(4, 3), randn(4, 5)], lambda a, b: torch.mm(a.t(), b), pre=TRANSPOSE_A)
add("mm_empty_k", "mm(%a, %b)", [randn(3, 0), randn(0, 2)], torch.mm)
add("bmm_f32", "bmm(%a, %b)", [randn(2, 3, 4), randn(2, 4, 5)], torch.bmm)
add("matmul_dot", "matmul(%a, %b)", [randn(4), randn(4)], torch.matmul)
add("matmul_vec_mat", "matmul(%a, %b)", [randn(4), randn(4, 3)], torch.matmul)
add("matmul_mat_vec", "matmul(%a, %b)", [randn(3, 4), randn(4)], torch.matmul)
add("matmul_batch_vec", "matmul(%a, %b)", [randn(2, 3, 4), randn(4)], torch.matmul)
add("matmul_vec_batch", "matmul(%a, %b)", [randn(4), randn(2, 4, 3)], torch.matmul)
add("matmul_batch_broadcast", "matmul(%a, %b)", [randn(2, 1, 3, 4), randn(5, 4, 6)], torch.matmul)
add("matmul_batch_mat", "matmul(%a, %b)", [randn(2, 3, 4), randn(4, 6)], torch.matmul)
add("matmul_i32", "matmul(%a, %b)", [randint(-3, 3, 2, 3, dtype=torch.int32), randint(-3, 3, 3, 2, dtype=torch.int32)],
    torch.matmul)
add("matmul_f16", "matmul(%a, %b)", [randn(2, 3, 4, dtype=torch.float16), randn(4, 2, dtype=torch.float16)],
    torch.matmul, **LOW)
add("matmul_empty_batch", "matmul(%a, %b)", [randn(0, 3, 4), randn(4, 2)], torch.matmul)
add("addmm", "addmm(%a, %b, %c) {alpha=0.5, beta=2.0}", [randn(5), randn(3, 4), randn(4, 5)],
    lambda s, a, b: torch.addmm(s, a, b, beta=2.0, alpha=0.5))
add("addmm_int_truncated_scales", "addmm(%a, %b, %c) {alpha=2.5, beta=-1.5}", [randint(-5, 5, 2, 2)] * 3,
    lambda s, a, b: torch.addmm(s, a, b, beta=-1.5, alpha=2.5))
add_error("addmm_int_inf_alpha", "addmm(%a, %b, %c) {alpha=inf, beta=1}", [randint(-5, 5, 2, 2)] * 3, "i64[2,2]",
          "addmm: value inf cannot be converted to i64 without overflow")
add_error("baddbmm_i32_beta", "baddbmm(%a, %b, %c) {alpha=1, beta=3e9}", [randint(-5, 5, 1, 2, 2, dtype=torch.int32)] * 3,
          "i32[1,2,2]", "baddbmm: value 3e+09 cannot be converted to i32 without overflow")
add("addmm_i64", "addmm(%a, %b, %c) {alpha=2, beta=3}", [randint(-3, 3, 3, 5), randint(-3, 3, 3, 4),
                                                         randint(-3, 3, 4, 5)],
    lambda s, a, b: torch.addmm(s, a, b, beta=3, alpha=2))
add("addmm_beta0_nan", "addmm(%a, %b, %c) {beta=0}", [torch.full((3, 5), float("nan")), randn(3, 4), randn(4, 5)],
    lambda s, a, b: torch.addmm(s, a, b, beta=0))
add("linear_bias", "linear(%a, %b, %c)", [randn(2, 3, 4), randn(5, 4), randn(5)], F.linear)
add("linear_nobias", "linear(%a, %b, none)", [randn(3, 4), randn(5, 4)], lambda x, w: F.linear(x, w))
add("linear_f64", "linear(%a, %b, %c)", [randn(3, 4, dtype=torch.float64), randn(2, 4, dtype=torch.float64),
                                         randn(2, dtype=torch.float64)], F.linear)
add("linear_vec_weight", "linear(%a, %b, none)", [randn(3, 4), randn(4)], lambda x, w: F.linear(x, w))
add("baddbmm", "baddbmm(%a, %b, %c) {alpha=1.5, beta=0.5}", [randn(1, 3, 5), randn(2, 3, 4), randn(2, 4, 5)],
    lambda s, a, b: torch.baddbmm(s, a, b, beta=0.5, alpha=1.5))

add_error("mm_dtype_mismatch", "mm(%a, %b)", [randn(2, 3), randn(3, 2, dtype=torch.float64)], "f32[2,2]",
          "expected m1 and m2 to have the same dtype")
add_error("mm_shape_mismatch", "mm(%a, %b)", [randn(2, 3), randn(4, 2)], "f32[2,2]", "cannot be multiplied (2x3 and 4x2)")
add_error("matmul_0d", "matmul(%a, %b)", [torch.tensor(1.5), randn(3)], "f32[]", "need to be at least 1D")
add_error("matmul_batch_mismatch", "matmul(%a, %b)", [randn(2, 3, 4), randn(3, 4, 5)], "f32[2,3,5]",
          "matmul: batch dimensions [2] and [3] are not broadcastable")
add_error("bmm_rank", "bmm(%a, %b)", [randn(3, 4), randn(4, 5)], "f32[3,5]",
          "bmm: batch1 must be a 3D tensor, got shape [3,4]")
add_error("bmm_rank_mat2", "bmm(%a, %b)", [randn(2, 3, 4), randn(4, 5)], "f32[2,3,5]",
          "bmm: batch2 must be a 3D tensor, got shape [4,5]")
add_error("bmm_batch_count", "bmm(%a, %b)", [randn(2, 3, 4), randn(3, 4, 5)], "f32[2,3,5]",
          "bmm: batch1 and batch2 must have same number of batches, got 2 and 3")
add_error("baddbmm_inner_dim", "baddbmm(%a, %b, %c)", [randn(2, 3, 6), randn(2, 3, 4), randn(2, 5, 6)], "f32[2,3,6]",
          "baddbmm: Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 5].")
add_error("mm_self_rank", "mm(%a, %b)", [randn(2, 2, 2), randn(2, 2)], "f32[2,2]",
          "mm: self must be a matrix, got shape [2,2,2]")
add_error("mm_mat2_rank", "mm(%a, %b)", [randn(2, 2), randn(2)], "f32[2]", "mm: mat2 must be a matrix, got shape [2]")
add_error("addmm_mat1_rank", "addmm(%a, %b, %c)", [randn(2), randn(2), randn(2, 2)], "f32[2]",
          "addmm: mat1 must be a matrix, got shape [2]")
add_error("addmm_self_broadcast", "addmm(%a, %b, %c)", [randn(3), randn(2, 3), randn(3, 4)], "f32[2,4]",
          "addmm: self of shape [3] cannot be broadcast to [2,4]")
add_error("linear_weight_rank", "linear(%a, %b, none)", [randn(2, 3), randn(1, 4, 3)], "f32[2,4]",
          "linear: weight must be 1-D or 2-D, got shape [1,4,3]")
