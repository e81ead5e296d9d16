"""Oracle cases the ONNX exporters of the reduce, linalg, creation and nn ops need beyond the
per-family files: 0-d inputs (exported through [1]), symbolic dims (shape tensors and element
counts computed at run time), and PyTorch semantics ONNX's ops lack (a fully masked attention
row, an all-ignored cross_entropy, uint8 class targets, addmm with beta=0)."""
import torch
import torch.nn.functional as F

from oracle_case import Case, randn, randint, rand_bool
from single_op import SingleOpCases

CASES = SingleOpCases(rtol=1e-5, atol=1e-5)
add = CASES.add


def add_graph(name, params, call, out_type, inputs, ref):
    """A one-op graph with explicit (possibly symbolic) parameter types."""
    sig = ", ".join(f"%{chr(ord('a') + i)}: {t}" for i, t in enumerate(params))
    graph = f"graph @g({sig}) -> ({out_type}) {{\n  %0 = {call} : {out_type}\n  return %0\n}}"
    CASES.append(Case(name, graph, inputs=inputs, ref=ref, rtol=1e-5, atol=1e-5))


# 0-d inputs.
S = torch.tensor(2.5)
add("sum_0d", "sum(%a)", [S], torch.sum)
add("var_0d_correction0", "var(%a) {correction=0}", [S], lambda a: torch.var(a, correction=0))
add("argmax_0d", "argmax(%a)", [S], torch.argmax)
add("cumsum_0d", "cumsum(%a) {dim=0}", [S], lambda a: torch.cumsum(a, 0))
add("softmax_0d", "softmax(%a) {dim=0}", [S], lambda a: torch.softmax(a, 0))
add("logsumexp_0d", "logsumexp(%a) {dim=[0]}", [S], lambda a: torch.logsumexp(a, [0]))
add("prod_int_0d", "prod(%a)", [torch.tensor(7)], torch.prod)

# dim=None with keepdim, any/all over no dims.
add("argmax_all_keepdim", "argmax(%a) {keepdim=true}", [randn(3, 4)], lambda a: torch.argmax(a, keepdim=True))
add("any_no_dims", "any(%a) {dim=[]}", [torch.tensor([[0.0, 1.0], [float("nan"), 0.0]])], lambda a: torch.any(a, dim=()))
add("prod_int_wrap_odd", "prod(%a) {dim=1}", [torch.tensor([[2**21, 2**21, 2**21, 3, 5]] * 2)], lambda a: torch.prod(a, 1))

# Symbolic dims.
add_graph("mean_symbolic", ["f32[B,3]"], "mean(%a) {dim=[0]}", "f32[3]", [randn(4, 3)], lambda a: a.mean(0))
add_graph("var_symbolic_all", ["f32[B,3]"], "var(%a)", "f32[]", [randn(5, 3)], torch.var)
add_graph("argmax_symbolic_flat", ["f32[B,3]"], "argmax(%a)", "i64[]", [randn(4, 3)], torch.argmax)
add_graph("full_like_symbolic", ["f32[B,3]"], "full_like(%a) {fill_value=2}", "f32[B,3]", [randn(2, 3)],
          lambda a: torch.full_like(a, 2))
add_graph("layer_norm_symbolic", ["f32[B,4]", "f32[4]"], "layer_norm(%a, %b, none) {normalized_shape=[4]}", "f32[B,4]",
          [randn(3, 4), randn(4)], lambda x, w: F.layer_norm(x, [4], w))
add_graph("group_norm_symbolic", ["f32[B,4,3]"], "group_norm(%a, none, none) {num_groups=2}", "f32[B,4,3]",
          [randn(2, 4, 3)], lambda x: F.group_norm(x, 2))
add_graph("cross_entropy_symbolic", ["f32[B,5]", "i64[B]"], "cross_entropy(%a, %b) {label_smoothing=0.1}", "f32[]",
          [randn(4, 5), randint(0, 5, 4)], lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1))
add_graph("sdpa_causal_symbolic", ["f32[L,8]", "f32[L,8]", "f32[L,5]"],
          "scaled_dot_product_attention(%a, %b, %c, none) {is_causal=true}", "f32[L,5]",
          [randn(6, 8), randn(6, 8), randn(6, 5)], lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True))
add_graph("linear_symbolic", ["f32[B,4]", "f32[3,4]", "f32[3]"], "linear(%a, %b, %c)", "f32[B,3]",
          [randn(2, 4), randn(3, 4), randn(3)], F.linear)

# PyTorch semantics ONNX's ops lack.
MASK = torch.ones(4, 6, dtype=torch.bool)
MASK[2] = False
add("sdpa_fully_masked_row", "scaled_dot_product_attention(%a, %b, %c, %d)",
    [randn(2, 4, 8), randn(2, 6, 8), randn(2, 6, 5), MASK],
    lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m))
add("cross_entropy_1d_all_ignored", "cross_entropy(%a, %b) {ignore_index=3, label_smoothing=0.2}",
    [randn(5), torch.tensor(3)], lambda x, t: F.cross_entropy(x, t, ignore_index=3, label_smoothing=0.2))
add("cross_entropy_1d_smooth", "cross_entropy(%a, %b, %c) {label_smoothing=0.2}",
    [randn(5), torch.tensor(1), torch.rand(5)], lambda x, t, w: F.cross_entropy(x, t, w.detach(), label_smoothing=0.2))
# The weight comes from a setup node (kiln's cross_entropy takes no gradient for it, so the
# grad oracle must not treat it as a differentiable input).
add("cross_entropy_probs_weight_sum", "cross_entropy(%a, %b, %w) {reduction=\"sum\"}",
    [randn(3, 4, 2), torch.softmax(randn(3, 4, 2), 1)],
    lambda x, p: F.cross_entropy(x, p, torch.arange(1.0, 5.0), reduction="sum"),
    pre=[("w", "arange() {dtype=f32, end=5, start=1}", lambda x, p: torch.arange(1.0, 5.0))])
add("nll_loss_u8_target_sum", "nll_loss(%a, %b, none) {reduction=\"sum\"}",
    [randn(4, 3), torch.tensor([0, 2, 1, 2], dtype=torch.uint8)],
    lambda x, t: F.nll_loss(x, t.long(), reduction="sum"))
add("addmm_beta0_broadcast", "addmm(%a, %b, %c) {beta=0}", [torch.full((5,), float("inf")), randn(3, 4), randn(4, 5)],
    lambda s, a, b: torch.addmm(s, a, b, beta=0))
add("matmul_i8", "matmul(%a, %b)", [randint(-3, 3, 2, 3, dtype=torch.int8), randint(-3, 3, 3, 2, dtype=torch.int8)],
    torch.matmul)
add("batch_norm_train_with_stats", "batch_norm(%a, %b, %c, %d, %e) {training=true}",
    [randn(4, 3, 2), randn(3), randn(3), randn(3), torch.rand(3) + 0.5],
    lambda x, w, b, m, v: F.batch_norm(x, m.detach().clone(), v.detach().clone(), w, b, training=True))
add("avg_pool2d_ceil_count_pad", "avg_pool2d(%a) {ceil_mode=true, kernel_size=[3], padding=[1], stride=[2]}",
    [randn(1, 2, 6, 6)], lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True))
add("max_pool2d_ceil_nopad", "max_pool2d(%a) {ceil_mode=true, kernel_size=[2], stride=[2]}", [randn(1, 5, 5)],
    lambda x: F.max_pool2d(x, 2, 2, ceil_mode=True))
add("dropout_p1_eval", "dropout(%a) {p=1.0, train=false}", [randn(3)], lambda x: F.dropout(x, 1.0, training=False))
add("arange_i32_wrap", "arange() {dtype=i32, end=10, start=-3, step=4}", [], lambda: torch.arange(-3, 10, 4, dtype=torch.int32))
add("zeros_symbolic_free_bf16", "zeros() {dtype=bf16, size=[2, 0, 3]}", [], lambda: torch.zeros(2, 0, 3, dtype=torch.bfloat16))
