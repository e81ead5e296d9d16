"""Oracle cases for the ONNX export of the indexing ops (run_oracle.py --device onnx): the
paths cases_index.py leaves out: advanced indexing whose broadcast dims stay in place or move
first, 0-d and multi-dim index tensors, negative indices, index_put with accumulate and
repeated indices, indices smaller than self in gather/scatter, 0-d self, and dtypes that
ONNX Runtime's kernels lack (bf16, i16, bool)."""
import torch
import torch.nn.functional as F

from oracle_case import Case, randn, randint, rand_bool
from single_op import SingleOpCases

CASES = SingleOpCases()
add = CASES.add

I2 = torch.tensor([[0, -1], [1, 2]])
add("index_in_place_2d", "index(%a, none, %b, %c)", [randn(2, 3, 4, 5), I2, torch.tensor([3, -4])],
    lambda a, i, j: a[:, i, j])
add("index_separated_trailing", "index(%a, %b, none, %c)", [randn(3, 2, 4, 2), torch.tensor(-1), torch.tensor([[0], [3]])],
    lambda a, i, j: torch.ops.aten.index(a, [i, None, j]))
add("index_scalar_index_bf16", "index(%a, none, %b)", [randn(2, 3, dtype=torch.bfloat16), torch.tensor(1)],
    lambda a, i: a[:, i])
add("index_i32_bool_self", "index(%a, %b)", [rand_bool(4, 2), torch.tensor([3, 3, 0], dtype=torch.int32)],
    lambda a, i: a[i.long()])
add("index_empty", "index(%a, %b)", [randn(4, 2), torch.zeros(0, dtype=torch.int64)], lambda a, i: a[i])
add("index_all_dims", "index(%a, %b, %c)", [randint(0, 9, 3, 4), torch.tensor([2, -3]), torch.tensor([-1])],
    lambda a, i, j: a[i, j])
add("index_put_in_place_acc", "index_put(%a, none, %b, %c) {accumulate=true}",
    [randn(2, 4, 3), torch.tensor([1, -3, 1]), randn(3, 1)],
    lambda a, i, v: torch.ops.aten.index_put(a, [None, i], v, True))
def put_separated(a, i, j, v):
    out = a.clone()
    out[i, :, j] = v
    return out


add("index_put_separated", "index_put(%a, %b, none, %c, %d)",
    [randn(3, 2, 4), torch.tensor([0, 2]), torch.tensor([-1, 1]), randn(2)], put_separated)
add("index_put_bool_values", "index_put(%a, %b, %c) {accumulate=true}", [rand_bool(5), torch.tensor([0, 0, 3]), rand_bool(3)],
    lambda a, i, v: a.index_put((i,), v, accumulate=True))
add("index_put_f16_acc", "index_put(%a, %b, %c) {accumulate=true}",
    [randn(4, 2, dtype=torch.float16), torch.tensor([3, 3]), randn(2, dtype=torch.float16)],
    lambda a, i, v: a.index_put((i,), v, accumulate=True))
add("index_put_repeat_last_wins", "index_put(%a, %b, %c)", [randint(0, 9, 4), torch.tensor([2, 2, 2]), torch.tensor([5, 6, 7])],
    lambda a, i, v: a.index_put((i,), v))
add("index_add_neg_dim_repeats", "index_add(%a, %b, %c) {dim=-1}", [randn(2, 4), torch.tensor([3, 0, 3]), randn(2, 3)],
    lambda a, i, s: a.index_add(-1, i, s))
add("index_add_scalar_self", "index_add(%a, %b, %c) {dim=0, alpha=3}", [torch.tensor(1.0), torch.tensor([0]), torch.tensor(2.0)],
    lambda a, i, s: a.index_add(0, i, s, alpha=3))
add("index_add_bf16", "index_add(%a, %b, %c) {dim=0}", [randn(3, 2, dtype=torch.bfloat16), torch.tensor([1]),
                                                       randn(1, 2, dtype=torch.bfloat16)],
    lambda a, i, s: a.index_add(0, i, s))
add("gather_small_index", "gather(%a, %b) {dim=0}", [randn(4, 5), torch.tensor([[3, 0], [1, 1]])], lambda a, i: a.gather(0, i))
add("gather_scalar", "gather(%a, %b) {dim=0}", [torch.tensor(2.5), torch.tensor(0)], lambda a, i: a.gather(0, i))
add("scatter_small_index_big_src", "scatter(%a, %b, %c) {dim=1}", [randn(3, 4), torch.tensor([[3], [0]]), randn(3, 3)],
    lambda a, i, s: a.scatter(1, i, s))
add("scatter_scalar_bf16", "scatter(%a, %b, 2.5) {dim=0}", [randn(3, 2, dtype=torch.bfloat16), torch.tensor([[2, 0]])],
    lambda a, i: a.scatter(0, i, 2.5))
add("scatter_add_i16", "scatter_add(%a, %b, %c) {dim=0}", [randint(0, 9, 3, dtype=torch.int16), torch.tensor([1, 1, 2]),
                                                          randint(0, 9, 3, dtype=torch.int16)],
    lambda a, i, s: a.scatter_add(0, i, s))
add("index_select_scalar_index", "index_select(%a, %b) {dim=1}", [randn(2, 3), torch.tensor(2)],
    lambda a, i: a.index_select(1, i))
add("index_select_scalar_self", "index_select(%a, %b) {dim=0}", [torch.tensor(4.0), torch.tensor([0])],
    lambda a, i: a.index_select(0, i))
add("masked_fill_bool", "masked_fill(%a, %b, true)", [rand_bool(3, 2), rand_bool(3, 2)], lambda a, m: a.masked_fill(m, True))
add("masked_fill_bf16", "masked_fill(%a, %b, -2.0)", [randn(2, 3, dtype=torch.bfloat16), rand_bool(1, 3)],
    lambda a, m: a.masked_fill(m, -2.0))
add("masked_fill_i16_tensor_value", "masked_fill(%a, %b, %c)", [randint(0, 9, 4, dtype=torch.int16), rand_bool(4),
                                                                 torch.tensor(-3, dtype=torch.int16)],
    lambda a, m, v: a.masked_fill(m, v))
add("embedding_i32_3d", "embedding(%a, %b)", [randn(5, 2, dtype=torch.float16), torch.tensor([[[4]], [[0]]], dtype=torch.int32)],
    lambda w, i: F.embedding(i, w))
add("scatter_scalar_src_tensor", "scatter(%a, %b, %c) {dim=0}", [randn(3), torch.tensor([2]), torch.tensor(4.0)],
    lambda a, i, s: a.scatter(0, i, s))


def add_symbolic(name, call, types, inputs, out_type, ref):
    """A one-op graph whose inputs have the (possibly symbolic) `types`."""
    params = ", ".join(f"%{chr(97 + i)}: {t}" for i, t in enumerate(types))
    graph = f"graph @g({params}) -> ({out_type}) {{\n  %0 = {call} : {out_type}\n  return %0\n}}"
    CASES.append(Case(name, graph, inputs=inputs, ref=ref))


add_symbolic("index_symbolic", "index(%a, none, %b)", ["f32[B,N]", "i64[K]"], [randn(3, 4), torch.tensor([-1, 0])],
             "f32[B,K]", lambda a, i: a[:, i])
add_symbolic("index_put_symbolic", "index_put(%a, none, %b, %c) {accumulate=true}", ["f32[B,N]", "i64[K]", "f32[K]"],
             [randn(3, 4), torch.tensor([-1, 3]), randn(2)], "f32[B,N]",
             lambda a, i, v: torch.ops.aten.index_put(a, [None, i], v, True))
add_symbolic("index_add_symbolic", "index_add(%a, %b, %c) {dim=1}", ["f32[B,N]", "i64[K]", "f32[B,K]"],
             [randn(3, 4), torch.tensor([1, 1]), randn(3, 2)], "f32[B,N]", lambda a, i, s: a.index_add(1, i, s))
add_symbolic("gather_symbolic", "gather(%a, %b) {dim=1}", ["f32[B,N]", "i64[B,K]"],
             [randn(3, 4), torch.tensor([[0], [3], [1]])], "f32[B,K]", lambda a, i: a.gather(1, i))
