"""Oracle cases for the indexing ops: index_select, gather, scatter, scatter_add, index,
index_put, index_add, masked_fill and embedding; several dtypes, negative dims, empty
indices, non-contiguous operands, and out-of-range indices reported as errors."""
import torch
import torch.nn.functional as F

from oracle_case import Case, randn, randint, rand_bool
from single_op import TRANSPOSE_A, SingleOpCases, single_op

CASES = SingleOpCases()
add, add_error = CASES.add, CASES.add_error


IDX = torch.tensor([2, 0, 2])
add("index_select", "index_select(%a, %b) {dim=0}", [randn(4, 3), IDX], lambda a, i: a.index_select(0, i))
add("index_select_neg_dim_i32", "index_select(%a, %b) {dim=-1}", [randint(0, 9, 2, 3), IDX.to(torch.int32)],
    lambda a, i: a.index_select(-1, i))
add("index_select_empty", "index_select(%a, %b) {dim=0}", [randn(4, 3), torch.zeros(0, dtype=torch.int64)],
    lambda a, i: a.index_select(0, i))
add("index_select_noncontig", "index_select(%t, %b) {dim=0}", [randn(3, 4), IDX],
    lambda a, i: a.t().index_select(0, i), pre=TRANSPOSE_A)
GIDX = torch.tensor([[0, 2], [1, 1], [2, 0]])
add("gather", "gather(%a, %b) {dim=1}", [randn(3, 4), GIDX], lambda a, i: a.gather(1, i))
add("gather_f64_dim0", "gather(%a, %b) {dim=0}", [randn(3, 2, dtype=torch.float64), GIDX[:2]],
    lambda a, i: a.gather(0, i))
add("scatter", "scatter(%a, %b, %c) {dim=1}", [torch.zeros(3, 4), GIDX, randn(3, 2)],
    lambda a, i, s: a.scatter(1, i, s))
add("scatter_scalar", "scatter(%a, %b, 7) {dim=1}", [randint(0, 3, 3, 4), GIDX], lambda a, i: a.scatter(1, i, 7))
add_error("scatter_scalar_int_inf", "scatter(%a, %b, inf) {dim=1}", [randint(0, 3, 3, 4), GIDX], "i64[3,4]",
          "scatter: value inf cannot be converted to i64 without overflow")
add("scatter_add", "scatter_add(%a, %b, %c) {dim=0}", [randn(3, 3), torch.tensor([[0, 1, 0], [0, 0, 2]]), randn(2, 3)],
    lambda a, i, s: a.scatter_add(0, i, s))
# 0-d operands: gather and scatter read one as a 1-d tensor of one element (PyTorch's
# ensure_nonempty_dim), so a 0-d index into a 1-d self is the index [index] (gather's used to
# crash the interpreter) and a 0-d src fits an index of one element only; index_add's 0-d self
# takes one index and a 0-d source; index_select's 0-d index picks [index]; index, index_put
# and embedding broadcast a 0-d index like any other shape.
add("scatter_add_0d_index", "scatter_add(%a, %b, %c) {dim=0}", [randn(3), torch.tensor(1), randn(2)],
    lambda a, i, s: a.scatter_add(0, i, s))
add("scatter_0d_index", "scatter(%a, %b, %c) {dim=0}", [randn(3), torch.tensor(2), randn(2)],
    lambda a, i, s: a.scatter(0, i, s))
add("gather_0d_index", "gather(%a, %b) {dim=0}", [randn(3, dtype=torch.float64), torch.tensor(1)],
    lambda a, i: a.gather(0, i))
add("gather_0d_index_neg_dim_i32", "gather(%a, %b) {dim=-1}", [randint(0, 9, 4), torch.tensor(3, dtype=torch.int32)],
    lambda a, i: a.gather(-1, i))
add("gather_0d_self", "gather(%a, %b) {dim=0}", [randn(()), torch.tensor([0, 0])], lambda a, i: a.gather(0, i))
add("gather_0d_self_0d_index", "gather(%a, %b) {dim=0}", [randn(()), torch.tensor(0)], lambda a, i: a.gather(0, i))
add("scatter_0d_src", "scatter(%a, %b, %c) {dim=0}", [randn(3), torch.tensor([1]), randn(())],
    lambda a, i, s: a.scatter(0, i, s))
add("scatter_0d_all", "scatter(%a, %b, %c) {dim=0}", [randn(()), torch.tensor(0), randn(())],
    lambda a, i, s: a.scatter(0, i, s))
add("scatter_0d_self_scalar", "scatter(%a, %b, 7) {dim=0}", [randint(0, 3), torch.tensor([0, 0])],
    lambda a, i: a.scatter(0, i, 7))
add("scatter_add_0d_self", "scatter_add(%a, %b, %c) {dim=0}", [randn(()), torch.tensor([0, 0]), randn(2)],
    lambda a, i, s: a.scatter_add(0, i, s))
add("index_select_0d_index", "index_select(%a, %b) {dim=1}", [randn(2, 3), torch.tensor(2)],
    lambda a, i: a.index_select(1, i))
add("index_select_0d_self", "index_select(%a, %b) {dim=0}", [randn(()), torch.tensor(0)],
    lambda a, i: a.index_select(0, i))
add("index_0d_indices", "index(%a, %b, %c)", [randn(2, 3), torch.tensor(1), torch.tensor([2, 0])],
    lambda a, i, j: a[i, j])
add("index_put_0d_index", "index_put(%a, %b, %c)", [randn(2, 3), torch.tensor(1), randn(3)],
    lambda a, i, v: a.index_put((i,), v))
add("index_put_0d_index_0d_values", "index_put(%a, %b, %c) {accumulate=true}", [randn(3), torch.tensor(1), randn(())],
    lambda a, i, v: a.index_put((i,), v, accumulate=True))
add("index_add_0d_index", "index_add(%a, %b, %c) {dim=0}", [randn(2, 3), torch.tensor(1), randn(1, 3)],
    lambda a, i, s: a.index_add(0, i, s))
add("index_add_0d_self", "index_add(%a, %b, %c) {alpha=3, dim=0}", [randn(()), torch.tensor([0]), randn(())],
    lambda a, i, s: a.index_add(0, i, s, alpha=3))
add("embedding_0d_index", "embedding(%a, %b)", [randn(4, 3), torch.tensor(2)], lambda w, i: F.embedding(i, w))
add("index_one", "index(%a, %b)", [randn(5, 3), torch.tensor([4, -1, 0])], lambda a, i: a[i])
add("index_adjacent", "index(%a, none, %b, %c)", [randn(2, 3, 4), torch.tensor([[0], [2]]), torch.tensor([1, 3])],
    lambda a, i, j: a[:, i, j])
add("index_separated", "index(%a, %b, none, %c)", [randn(2, 3, 4), torch.tensor([1, 0]), torch.tensor([3])],
    lambda a, i, j: a[i, :, j])
add("index_put", "index_put(%a, %b, %c)", [randn(5), torch.tensor([1, 3]), randn(2)],
    lambda a, i, v: a.index_put((i,), v))
add("index_put_accumulate", "index_put(%a, %b, %c) {accumulate=true}", [randn(5), torch.tensor([1, 1, 4]), randn(3)],
    lambda a, i, v: a.index_put((i,), v, accumulate=True))
add("index_put_2d_broadcast", "index_put(%a, %b, %c)", [randn(4, 3), torch.tensor([0, 2]), randn(3)],
    lambda a, i, v: a.index_put((i,), v))
add("index_add", "index_add(%a, %b, %c) {alpha=2, dim=1}", [randn(2, 4), torch.tensor([3, 0, 3]), randn(2, 3)],
    lambda a, i, s: a.index_add(1, i, s, alpha=2))
add("index_add_i64", "index_add(%a, %b, %c) {dim=0}", [randint(0, 9, 3, 2), torch.tensor([2, 2]), randint(0, 9, 2, 2)],
    lambda a, i, s: a.index_add(0, i, s))
add("masked_fill", "masked_fill(%a, %b, -1.5)", [randn(3, 4), rand_bool(3, 4)], lambda a, m: a.masked_fill(m, -1.5))
add("masked_fill_broadcast_i32", "masked_fill(%a, %b, 5)", [randint(0, 3, 3, 4, dtype=torch.int32), rand_bool(4)],
    lambda a, m: a.masked_fill(m, 5))
add("masked_fill_tensor_value", "masked_fill(%a, %b, %c)", [randn(2, 3), rand_bool(2, 3), torch.tensor(9.0)],
    lambda a, m, v: a.masked_fill(m, v))
add("embedding", "embedding(%a, %b)", [randn(6, 3), torch.tensor([[5, 0], [2, 2]])], lambda w, i: F.embedding(i, w))
add("embedding_padding_idx", "embedding(%a, %b) {padding_idx=0}", [randn(6, 3), torch.tensor([0, 1])],
    lambda w, i: F.embedding(i, w, padding_idx=0))

add_error("index_select_oob", "index_select(%a, %b) {dim=0}", [randn(5), torch.tensor([7])], "f32[1]",
          "index_select: index 7 is out of bounds for dim 0 with size 5")
add_error("gather_oob", "gather(%a, %b) {dim=1}", [randn(2, 3), torch.tensor([[3], [0]])], "f32[2,1]",
          "out of bounds")
add_error("embedding_oob", "embedding(%a, %b)", [randn(4, 2), torch.tensor([4])], "f32[1,2]", "out of bounds")
add_error("index_oob", "index(%a, %b)", [randn(3), torch.tensor([-4])], "f32[1]", "out of bounds")
add_error("scatter_oob", "scatter(%a, %b, 1.0) {dim=0}", [randn(3), torch.tensor([3])], "f32[3]", "out of bounds")
add_error("index_select_float_index", "index_select(%a, %b) {dim=0}", [randn(3), randn(1)], "f32[1]",
          "expected dtype i32 or i64")
add_error("index_select_2d_index", "index_select(%a, %b) {dim=0}", [randn(3), torch.tensor([[0]])], "f32[1]",
          "index_select: index is supposed to be a vector, got shape [1,1]")
add_error("index_select_scalar_two_values", "index_select(%a, %b) {dim=0}", [torch.tensor(1.5), torch.tensor([0, 0])],
          "f32[]", "index_select: index to scalar can have only 1 value, got 2")
add_error("scatter_float_index", "scatter(%a, %b, 1.0) {dim=0}", [randn(3), randn(1)], "f32[3]",
          "scatter: expected dtype i32 or i64 for index, got f32")
add_error("index_add_2d_index", "index_add(%a, %b, %c) {dim=0}", [randn(3, 2), torch.tensor([[0]]), randn(1, 2)],
          "f32[3,2]", "index_add: index is supposed to be a vector, got shape [1,1]")
add_error("index_bool_mask", "index(%a, %b)", [randn(3), rand_bool(3)], "f32[3]",
          "index: boolean mask indices give data-dependent shapes; use an integer index (index 0)")
add_error("index_broadcast_mismatch", "index(%a, %b, %c)", [randn(3, 4), torch.tensor([0, 1]), torch.tensor([0, 1, 2])],
          "f32[2]", "index: shape mismatch: indexing tensors could not be broadcast together with shapes [2] and [3]")
add_error("index_put_dtype_mismatch", "index_put(%a, %b, %c)",
          [randn(4), torch.tensor([0]), randn(1, dtype=torch.float64)], "f32[4]",
          "index_put: index put requires the source and destination dtypes match, got f32 for the destination and f64 "
          "for the source")
add_error("index_put_values_shape", "index_put(%a, %b, %c)", [randn(4, 3), torch.tensor([0, 2]), randn(4)],
          "f32[4,3]",
          "index_put: shape mismatch: value tensor of shape [4] cannot be broadcast to indexing result of shape [2,3]")
# A float value cast to bool is x != 0 (found by the libFuzzer target over random graphs: the
# reference kernel truncated 0.5 to 0, false, where torch and the compiled code give true).
add("masked_fill_bool_float_value", "masked_fill(%a, %b, %c)",
    [torch.tensor([False, False, True]), torch.tensor([True, False, True]), torch.tensor(0.5)],
    lambda a, m, v: a.masked_fill(m, v))
add("masked_fill_bool_float_literal", "masked_fill(%a, %b, 0.25)", [torch.tensor([False, True]), torch.tensor([True, False])],
    lambda a, m: a.masked_fill(m, 0.25))
add_error("masked_fill_int_mask", "masked_fill(%a, %b, 0.0)", [randn(3), torch.tensor([0, 1, 0])], "f32[3]",
          "masked_fill: expected a bool mask, got i64")
add_error("masked_fill_value_rank", "masked_fill(%a, %b, %c)", [randn(3), rand_bool(3), randn(1)], "f32[3]",
          "masked_fill: only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)")
add_error("masked_fill_mask_shape", "masked_fill(%a, %b, 0.0)", [randn(3), rand_bool(4)], "f32[3]",
          "masked_fill: mask of shape [4] is not broadcastable to [3]")
add_error("gather_0d_index_oob", "gather(%a, %b) {dim=0}", [randn(3), torch.tensor(3)], "f32[]",
          "gather: index 3 is out of bounds for dim 0 with size 3")
add_error("gather_0d_index_2d_self", "gather(%a, %b) {dim=0}", [randn(2, 3), torch.tensor(0)], "f32[]",
          "gather: index tensor must have the same number of dimensions as input tensor, got 0 and 2")
add_error("scatter_0d_src_two_indices", "scatter(%a, %b, %c) {dim=0}", [randn(3), torch.tensor([1, 2]), randn(())],
          "f32[3]", "scatter: expected index [2] to be no larger than src [1] at dimension 0")
add_error("scatter_0d_index_2d_self", "scatter(%a, %b, 1.0) {dim=0}", [randn(2, 3), torch.tensor(0)], "f32[2,3]",
          "scatter: index tensor must have the same number of dimensions as self tensor")
add_error("index_add_0d_self_two_indices", "index_add(%a, %b, %c) {dim=0}", [randn(()), torch.tensor([0, 0]), randn(())],
          "f32[]", "index_add: a 0-d self takes one index and a 0-d source, got index of shape [2] and source of shape []")
add_error("index_add_0d_self_1d_source", "index_add(%a, %b, %c) {dim=0}", [randn(()), torch.tensor(0), randn(1)],
          "f32[]", "index_add: a 0-d self takes one index and a 0-d source, got index of shape [] and source of shape [1]")
add_error("embedding_weight_rank", "embedding(%a, %b)", [randn(4), torch.tensor([0])], "f32[1]",
          "embedding: weight must be 2-D, got shape [4]")
