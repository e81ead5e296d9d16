"""Oracle cases for softmax/log_softmax, the normalizations, the losses and the nn ops
(conv2d, pooling, dropout with p=0 or train=false, scaled_dot_product_attention without
dropout). Random behaviour of dropout is tested in tests/unit/test_kernels_nn.cc."""
import torch
import torch.nn.functional as F

from oracle_case import Case, randn, randint, rand_bool
from single_op import TRANSPOSE_A, SingleOpCases, single_op

# References detach class weights and running statistics: PyTorch refuses to differentiate
# them (kiln gives them no gradient), and the gradient oracle then expects zeros for them.
LOW = dict(rtol=2e-2, atol=2e-2)
CASES = SingleOpCases(rtol=1e-5, atol=1e-5)
add, add_error = CASES.add, CASES.add_error


NEG_INF_ROW = torch.tensor([[0.5, float("-inf"), 1.0], [float("-inf")] * 3])
add("softmax", "softmax(%a) {dim=-1}", [randn(3, 5)], lambda a: torch.softmax(a, -1))
add("softmax_dim0_noncontig", "softmax(%t) {dim=0}", [randn(3, 4)], lambda a: torch.softmax(a.t(), 0), pre=TRANSPOSE_A)
add("softmax_dtype", "softmax(%a) {dim=1, dtype=f64}", [randn(2, 3)], lambda a: torch.softmax(a, 1, dtype=torch.float64))
add("softmax_neg_inf", "softmax(%a) {dim=1}", [NEG_INF_ROW], lambda a: torch.softmax(a, 1))
add("softmax_bf16", "softmax(%a) {dim=0}", [randn(6, dtype=torch.bfloat16)], lambda a: torch.softmax(a, 0), **LOW)
# Rows of 50257 bf16 (a GPT-2 vocabulary), 136 of them: the CUDA backend fuses each into one
# kernel whose parts re-read the row in memory, walked from each row's first 16-byte boundary
# (rows start at any 2-byte one: docs/CUDA_CODEGEN.md), head and tail a point a thread.
add("softmax_long_rows_bf16", "softmax(%a) {dim=-1}", [randn(136, 50257, dtype=torch.bfloat16)],
    lambda a: torch.softmax(a, -1), **LOW)
add("layer_norm_long_rows_bf16", "layer_norm(%a, %b, %c) {normalized_shape=[50257]}",
    [randn(136, 50257, dtype=torch.bfloat16), randn(50257, dtype=torch.bfloat16), randn(50257, dtype=torch.bfloat16)],
    lambda x, w, b: F.layer_norm(x, [50257], w, b), **LOW,
    onnx_skip="ONNX Runtime's bf16 LayerNormalization is not one rounding of the exact result: where w * (x - mean) * rstd "
              "cancels b, 49 of its 6.8M results are off by more than a unit (5.1e-5 against 4.6e-5); the "
              "smaller layer_norm cases cover the export")
# Rows of 1024 (and 1000), 136 of them: enough rows for the CUDA backend to fuse each row into one
# kernel, the row held in registers (codegen/cuda/cuda_held_row.h: its values loaded once, the
# exponentials held between parts, the quotient by the row's sum as a product with its
# reciprocal, layer_norm's variance in two passes over the registers); the smaller cases above
# run as separate kernels there.
add("softmax_held_rows", "softmax(%a) {dim=-1}", [randn(136, 1024)], lambda a: torch.softmax(a, -1))
add("softmax_held_rows_bf16", "softmax(%a) {dim=-1}", [randn(136, 1024, dtype=torch.bfloat16)],
    lambda a: torch.softmax(a, -1), **LOW)
add("log_softmax_held_rows", "log_softmax(%a) {dim=-1}", [randn(136, 1000)], lambda a: torch.log_softmax(a, -1))
add("layer_norm_held_rows_bf16", "layer_norm(%a, %b, %c) {normalized_shape=[1024]}",
    [randn(136, 1024, dtype=torch.bfloat16), randn(1024, dtype=torch.bfloat16), randn(1024, dtype=torch.bfloat16)],
    lambda x, w, b: F.layer_norm(x, [1024], w, b), **LOW)
add("log_softmax", "log_softmax(%a) {dim=1}", [randn(2, 5, 3)], lambda a: torch.log_softmax(a, 1))
add("log_softmax_empty", "log_softmax(%a) {dim=0}", [randn(0, 3)], lambda a: torch.log_softmax(a, 0))
add("layer_norm", "layer_norm(%a, %b, %c) {normalized_shape=[4]}", [randn(2, 3, 4), randn(4), randn(4)],
    lambda x, w, b: F.layer_norm(x, [4], w, b))
add("layer_norm_2d_noaffine", "layer_norm(%a, none, none) {eps=0.001, normalized_shape=[3, 4]}", [randn(2, 3, 4)],
    lambda x: F.layer_norm(x, [3, 4], eps=1e-3))
add("layer_norm_f64", "layer_norm(%a, %b, none) {normalized_shape=[5]}",
    [randn(3, 5, dtype=torch.float64), randn(5, dtype=torch.float64)], lambda x, w: F.layer_norm(x, [5], w))
add("rms_norm", "rms_norm(%a, %b) {normalized_shape=[4]}", [randn(3, 4), randn(4)],
    lambda x, w: F.rms_norm(x, [4], w))
add("rms_norm_eps", "rms_norm(%a, none) {eps=0.1, normalized_shape=[2, 3]}", [randn(2, 2, 3)],
    lambda x: F.rms_norm(x, [2, 3], eps=0.1))
add("batch_norm_eval", "batch_norm(%a, %b, %c, %d, %e)",
    [randn(2, 3, 4, 4), randn(3), randn(3), randn(3), torch.rand(3) + 0.5],
    lambda x, w, b, m, v: F.batch_norm(x, m.detach(), v.detach(), w, b, training=False))
add("batch_norm_train", "batch_norm(%a, %b, %c, none, none) {training=true}", [randn(4, 3, 5), randn(3), randn(3)],
    lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True))
add("batch_norm_train_2d", "batch_norm(%a, none, none, none, none) {training=true, eps=0.01}", [randn(6, 2)],
    lambda x: F.batch_norm(x, None, None, training=True, eps=0.01))
# The normalizations' statistics are a mean beside var(correction=0), one Welford kernel on the
# CPU backend: a row or channel with an infinity or NaN normalizes to NaN, as in PyTorch.
INF, NAN = float("inf"), float("nan")
add("layer_norm_non_finite", "layer_norm(%a, %b, %c) {normalized_shape=[3]}",
    [torch.tensor([[INF, 1.0, 2.0], [NAN, 0.5, 1.0], [-INF, INF, 0.0], [1.0, 2.0, 4.0]]), randn(3), randn(3)],
    lambda x, w, b: F.layer_norm(x, [3], w, b))
add("batch_norm_train_non_finite", "batch_norm(%a, %b, %c, none, none) {training=true}",
    [torch.tensor([[INF, 1.0, NAN], [2.0, 3.0, 0.5], [1.0, -1.0, 2.0]]), randn(3), randn(3)],
    lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True))
add("group_norm_non_finite", "group_norm(%a, none, none) {num_groups=2}", [torch.tensor([[INF, 1.0, 2.0, 3.0]])],
    lambda x: F.group_norm(x, 2))
add("group_norm", "group_norm(%a, %b, %c) {num_groups=2}", [randn(2, 4, 3, 3), randn(4), randn(4)],
    lambda x, w, b: F.group_norm(x, 2, w, b))
add("group_norm_noaffine", "group_norm(%a, none, none) {num_groups=3}", [randn(2, 6, 5)],
    lambda x: F.group_norm(x, 3))

T = torch.tensor([1, 0, 4, 2])
add("nll_loss", "nll_loss(%a, %b)", [randn(4, 5), T], F.nll_loss)
add("nll_loss_weight_ignore", "nll_loss(%a, %b, %c) {ignore_index=4}", [randn(4, 5), T, torch.rand(5)],
    lambda x, t, w: F.nll_loss(x, t, w.detach(), ignore_index=4))
add("nll_loss_none_nd", "nll_loss(%a, %b, none) {reduction=\"none\"}", [randn(2, 3, 4), randint(0, 3, 2, 4)],
    lambda x, t: F.nll_loss(x, t, reduction="none"))
add("cross_entropy", "cross_entropy(%a, %b)", [randn(4, 5), T], F.cross_entropy)
add("cross_entropy_sum_1d", "cross_entropy(%a, %b, none) {reduction=\"sum\"}", [randn(5), torch.tensor(3)],
    lambda x, t: F.cross_entropy(x, t, reduction="sum"))
add("cross_entropy_smooth_weight_ignore",
    "cross_entropy(%a, %b, %c) {ignore_index=0, label_smoothing=0.2}", [randn(4, 5), T, torch.rand(5)],
    lambda x, t, w: F.cross_entropy(x, t, w.detach(), ignore_index=0, label_smoothing=0.2))
add("cross_entropy_smooth_none_nd", "cross_entropy(%a, %b, none) {label_smoothing=0.1, reduction=\"none\"}",
    [randn(2, 3, 4), randint(0, 3, 2, 4)], lambda x, t: F.cross_entropy(x, t, reduction="none", label_smoothing=0.1))
# cross_entropy's log_softmax is log_softmax's (an +inf logit makes the row NaN, as torch): found
# by the random-graph fuzzer (the interpreter gave inf, the compiled code NaN).
INF_ROW = torch.tensor([[float("inf"), 1.0, 2.0, 3.0], [0.5, float("nan"), 1.0, 2.0], [1.0, 2.0, 3.0, 4.0]])
add("cross_entropy_inf_nan_logits", "cross_entropy(%a, %b) {reduction=\"none\"}", [INF_ROW, torch.tensor([2, 0, 1])],
    lambda x, t: F.cross_entropy(x, t, reduction="none"))
add("cross_entropy_probs", "cross_entropy(%a, %b, none) {label_smoothing=0.1}",
    [randn(3, 4), torch.softmax(randn(3, 4), 1)], lambda x, p: F.cross_entropy(x, p, label_smoothing=0.1))
add("cross_entropy_f64", "cross_entropy(%a, %b)", [randn(4, 5, dtype=torch.float64), T], F.cross_entropy)
add("mse_loss", "mse_loss(%a, %b)", [randn(3, 4), randn(3, 4)], F.mse_loss)
add("mse_loss_none_f64", "mse_loss(%a, %b) {reduction=\"none\"}",
    [randn(3, dtype=torch.float64), randn(3, dtype=torch.float64)], lambda a, b: F.mse_loss(a, b, reduction="none"))
add("mse_loss_sum", "mse_loss(%a, %b) {reduction=\"sum\"}", [randn(2, 3), randn(2, 3)],
    lambda a, b: F.mse_loss(a, b, reduction="sum"))

add("conv2d", "conv2d(%a, %b, %c)", [randn(2, 3, 6, 6), randn(4, 3, 3, 3), randn(4)], F.conv2d, rtol=1e-4, atol=1e-4)
add("conv2d_stride_pad_dil", "conv2d(%a, %b, none) {dilation=[2, 1], padding=[1, 2], stride=[2, 1]}",
    [randn(1, 2, 7, 5), randn(3, 2, 2, 3)],
    lambda x, w: F.conv2d(x, w, stride=(2, 1), padding=(1, 2), dilation=(2, 1)), rtol=1e-4, atol=1e-4)
add("conv2d_groups_unbatched", "conv2d(%a, %b, none) {groups=2}", [randn(4, 5, 5), randn(6, 2, 3, 3)],
    lambda x, w: F.conv2d(x, w, groups=2), rtol=1e-4, atol=1e-4)
add("conv2d_f64", "conv2d(%a, %b, none) {padding=[1]}", [randn(1, 1, 4, 4, dtype=torch.float64),
                                                        randn(2, 1, 3, 3, dtype=torch.float64)],
    lambda x, w: F.conv2d(x, w, padding=1))
add("max_pool2d", "max_pool2d(%a) {kernel_size=[2]}", [randn(2, 3, 6, 6)], lambda x: F.max_pool2d(x, 2))
add("max_pool2d_ceil_dil", "max_pool2d(%a) {ceil_mode=true, dilation=[2], kernel_size=[3], padding=[1], stride=[2]}",
    [randn(1, 2, 9, 8)], lambda x: F.max_pool2d(x, 3, 2, 1, 2, ceil_mode=True))
add("max_pool2d_nan", "max_pool2d(%a) {kernel_size=[2]}",
    [torch.tensor([[[1.0, float("nan")], [0.0, 2.0]]])], lambda x: F.max_pool2d(x, 2))
# Gradients go to the first maximum of a window (ties), the last NaN, and the first element in
# the input of an all -inf window; overlapping windows add up.
add("max_pool2d_ties_overlap", "max_pool2d(%a) {kernel_size=[3], padding=[1], stride=[1]}",
    [torch.randint(0, 3, (1, 2, 5, 5), generator=torch.Generator().manual_seed(3)).float()],
    lambda x: F.max_pool2d(x, 3, 1, 1))
add("max_pool2d_two_nans", "max_pool2d(%a) {kernel_size=[2, 3], stride=[1, 2]}",
    [torch.tensor([[[float("nan"), 1.0, float("nan"), 0.5], [0.0, 2.0, 3.0, float("nan")], [4.0, 1.0, -1.0, 0.0]]])],
    lambda x: F.max_pool2d(x, (2, 3), (1, 2)))
add("max_pool2d_neg_inf_pad", "max_pool2d(%a) {ceil_mode=true, kernel_size=[2], padding=[1], stride=[2]}",
    [torch.full((1, 1, 4, 3), float("-inf"))], lambda x: F.max_pool2d(x, 2, 2, 1, ceil_mode=True))
add("max_pool2d_unbatched_dil", "max_pool2d(%a) {dilation=[1, 2], kernel_size=[2, 3], stride=[1, 2]}",
    [randn(3, 5, 8)], lambda x: F.max_pool2d(x, (2, 3), (1, 2), dilation=(1, 2)))
add("avg_pool2d", "avg_pool2d(%a) {kernel_size=[3], padding=[1], stride=[2]}", [randn(2, 2, 7, 7)],
    lambda x: F.avg_pool2d(x, 3, 2, 1))
add("avg_pool2d_ceil_nopad", "avg_pool2d(%a) {ceil_mode=true, count_include_pad=false, kernel_size=[3, 2], "
    "padding=[1, 1], stride=[2, 2]}", [randn(1, 1, 6, 5)],
    lambda x: F.avg_pool2d(x, (3, 2), 2, 1, ceil_mode=True, count_include_pad=False))
add("avg_pool2d_divisor", "avg_pool2d(%a) {divisor_override=3, kernel_size=[2]}", [randn(3, 4, 4)],
    lambda x: F.avg_pool2d(x, 2, divisor_override=3))
add("adaptive_avg_pool2d", "adaptive_avg_pool2d(%a) {output_size=[3, 2]}", [randn(2, 3, 7, 5)],
    lambda x: F.adaptive_avg_pool2d(x, (3, 2)))
add("adaptive_avg_pool2d_up", "adaptive_avg_pool2d(%a) {output_size=[4]}", [randn(1, 3, 3)],
    lambda x: F.adaptive_avg_pool2d(x, 4))

# upsample_bilinear2d: PyTorch's source index (align_corners or half-pixel clamped at 0), with
# and without scales, up and down, sizes of 1 either side (DeepLabV3 upsamples a 1x1 pooled
# branch), a NaN (its weight-0 neighbours see it too, as in PyTorch), a non-contiguous input.
def bilinear(size=None, scale=None, corners=False):
    return lambda x: F.interpolate(x, size=size, scale_factor=scale, mode="bilinear", align_corners=corners)


UP_NAN = randn(1, 1, 3, 4)
UP_NAN[0, 0, 1, 2] = float("nan")
add("upsample_bilinear2d", "upsample_bilinear2d(%a) {align_corners=false, output_size=[13, 3]}", [randn(2, 3, 5, 7)],
    bilinear((13, 3)))
add("upsample_bilinear2d_corners", "upsample_bilinear2d(%a) {align_corners=true, output_size=[13, 3]}",
    [randn(2, 3, 5, 7)], bilinear((13, 3), corners=True))
add("upsample_bilinear2d_scales", "upsample_bilinear2d(%a) {align_corners=false, output_size=none, scales_h=2.5, scales_w=1.5}",
    [randn(2, 2, 4, 6)], bilinear(scale=(2.5, 1.5)))
add("upsample_bilinear2d_scales_corners", "upsample_bilinear2d(%a) {align_corners=true, output_size=none, scales_h=0.5, scales_w=3.0}",
    [randn(1, 2, 6, 3)], bilinear(scale=(0.5, 3.0), corners=True))
# output_size beside scales (ATen's .default overload): the size from output_size, the source
# index from 1 / scale.
add("upsample_bilinear2d_size_and_scales",
    "upsample_bilinear2d(%a) {align_corners=false, output_size=[6, 7], scales_h=1.7, scales_w=2.3}",
    [randn(1, 2, 4, 3)], lambda x: torch.ops.aten.upsample_bilinear2d.default(x, [6, 7], False, 1.7, 2.3),
    onnx_skip="ONNX's Resize takes sizes or scales, not both (docs/IMPORT.md)")
add("upsample_bilinear2d_down", "upsample_bilinear2d(%a) {align_corners=false, output_size=[4, 3]}",
    [randn(1, 2, 9, 8)], bilinear((4, 3)))
add("upsample_bilinear2d_from_one", "upsample_bilinear2d(%a) {align_corners=false, output_size=[4, 4]}",
    [randn(2, 3, 1, 1)], bilinear((4, 4)))
add("upsample_bilinear2d_to_one", "upsample_bilinear2d(%a) {align_corners=false, output_size=[1, 1]}",
    [randn(1, 2, 4, 5)], bilinear((1, 1)))
add("upsample_bilinear2d_to_one_corners", "upsample_bilinear2d(%a) {align_corners=true, output_size=[1, 2]}",
    [randn(1, 2, 4, 5)], bilinear((1, 2), corners=True))
add("upsample_bilinear2d_nan", "upsample_bilinear2d(%a) {align_corners=false, output_size=[5, 9]}", [UP_NAN],
    bilinear((5, 9)),
    onnx_reference_skip="ONNX's reference Resize leaves out neighbours of weight 0, so a NaN beside an output does not "
                        "reach it; PyTorch, kiln and ONNX Runtime blend it in (NaN)")
add("upsample_bilinear2d_noncontig", "upsample_bilinear2d(%t) {align_corners=false, output_size=[7, 5]}",
    [randn(3, 2, 4, 4)], lambda x: F.interpolate(x.transpose(0, 1), size=(7, 5), mode="bilinear"), pre=TRANSPOSE_A)
add("upsample_bilinear2d_f64", "upsample_bilinear2d(%a) {align_corners=false, output_size=[11, 6]}",
    [randn(2, 2, 5, 4, dtype=torch.float64)], bilinear((11, 6)), rtol=1e-12, atol=1e-12,
    onnx_skip="ONNX Runtime has no float64 Resize kernel (the export is ONNX's Resize in f64)")
# The half types: f32 weights and one rounding, as PyTorch's; the blend's own rounding (f32 there,
# double in the interpreter) may move a result by a unit.
add("upsample_bilinear2d_f16", "upsample_bilinear2d(%a) {align_corners=false, output_size=[11, 6]}",
    [randn(2, 2, 5, 4, dtype=torch.float16)], bilinear((11, 6)), rtol=2e-3, atol=2e-3)
add("upsample_bilinear2d_bf16", "upsample_bilinear2d(%a) {align_corners=true, output_size=[11, 6]}",
    [randn(2, 2, 5, 4, dtype=torch.bfloat16)], bilinear((11, 6), corners=True), **LOW)
add("dropout_eval", "dropout(%a) {p=0.5, train=false}", [randn(3, 4)], lambda x: F.dropout(x, 0.5, training=False))
add("dropout_p0", "dropout(%a) {p=0.0, train=true}", [randn(3, 4)], lambda x: F.dropout(x, 0.0, training=True))

Q, K, V = randn(2, 3, 4, 8), randn(2, 3, 6, 8), randn(2, 3, 6, 5)
add("sdpa", "scaled_dot_product_attention(%a, %b, %c, none)", [Q, K, V], F.scaled_dot_product_attention)
add("sdpa_causal_scale", "scaled_dot_product_attention(%a, %b, %c, none) {is_causal=true, scale=0.3}",
    [Q, randn(2, 3, 4, 8), randn(2, 3, 4, 5)], lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                                                             scale=0.3))
add("sdpa_bool_mask", "scaled_dot_product_attention(%a, %b, %c, %d)", [Q, K, V, rand_bool(4, 6)],
    lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m))
add("sdpa_float_mask_broadcast", "scaled_dot_product_attention(%a, %b, %c, %d)",
    [randn(3, 4, 8), randn(1, 6, 8), randn(1, 6, 5), randn(3, 1, 6)],
    lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m))
add("sdpa_f64", "scaled_dot_product_attention(%a, %b, %c, none)",
    [randn(2, 4, 8, dtype=torch.float64), randn(2, 5, 8, dtype=torch.float64), randn(2, 5, 3, dtype=torch.float64)],
    F.scaled_dot_product_attention)

# Found by the random-graph fuzzer: the CPU backend's decompositions computed f16 softmax-like
# ops and norms in f16, rounding the row sum to an f16 ulp (log_softmax 7% off where the result
# is -0.0027); they compute in f32 now. An attention over no keys gives zeros (its
# decomposition's row max had no element).
HALF = dict(rtol=2e-3, atol=1e-5)
add("log_softmax_i16_to_f16", "log_softmax(%a) {dim=0, dtype=f16}",
    [torch.tensor([[0, 3], [8, 1], [1, 0], [0, 2], [2, 1]], dtype=torch.int16)],
    lambda a: torch.log_softmax(a, 0, dtype=torch.float16), **HALF)
add("layer_norm_f16", "layer_norm(%a, none, none) {normalized_shape=[6]}", [(randn(3, 6) * 2 + 1000).half()],
    lambda x: F.layer_norm(x.float(), [6]).half(), rtol=2e-3, atol=5e-3)
add("sdpa_no_keys", "scaled_dot_product_attention(%a, %b, %c, none)", [randn(3, 2), randn(0, 2), randn(0, 4)],
    F.scaled_dot_product_attention)

add_error("layer_norm_shape", "layer_norm(%a, none, none) {normalized_shape=[3]}", [randn(2, 4)], "f32[2,4]",
          "expected input with shape")
add_error("softmax_int", "softmax(%a) {dim=0}", [randint(0, 3, 4)], "i64[4]", "not implemented for i64")
add_error("conv2d_channels", "conv2d(%a, %b, none)", [randn(1, 5, 8, 8), randn(4, 3, 3, 3)], "f32[1,4,6,6]",
          "to have 3 channels, but got 5")
add_error("max_pool2d_pad", "max_pool2d(%a) {kernel_size=[3], padding=[2]}", [randn(1, 1, 4, 4)], "f32[1,1,4,4]",
          "pad should be at most half of effective kernel size")
# torch: "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size"; the empty
# width once reached a derivative rule's reshape (fuzz-graphs --grad, seed 4402135).
add_error("max_pool2d_empty_width", "max_pool2d(%a) {kernel_size=[1, 2], padding=[0, 1]}", [randn(3, 2, 2, 0)],
          "f32[3,2,2,1]", "non-zero sizes except an optional 0 batch dim")
add_error("avg_pool2d_empty_channels", "avg_pool2d(%a) {kernel_size=[2]}", [randn(2, 0, 4, 4)], "f32[2,0,2,2]",
          "non-zero sizes except an optional 0 batch dim")
add("max_pool2d_empty_batch", "max_pool2d(%a) {kernel_size=[2]}", [randn(0, 2, 4, 4)], lambda x: F.max_pool2d(x, 2))
add_error("nll_loss_target_oob", "nll_loss(%a, %b)", [randn(2, 3), torch.tensor([3, 0])], "f32[]", "out of bounds")
add_error("batch_norm_eval_needs_stats", "batch_norm(%a, none, none, none, none)", [randn(2, 3)], "f32[2,3]",
          "running_mean and running_var must be defined")
add_error("group_norm_groups", "group_norm(%a, none, none) {num_groups=4}", [randn(2, 6, 3)], "f32[2,6,3]",
          "group_norm: expected number of channels in input to be divisible by num_groups, but got input of shape "
          "[2,6,3] and num_groups=4")
add_error("batch_norm_train_one_value", "batch_norm(%a, none, none, none, none) {training=true}", [randn(1, 3)],
          "f32[1,3]", "batch_norm: expected more than 1 value per channel when training, got input size [1,3]")

add_error("loss_bad_reduction", "nll_loss(%a, %b, none) {reduction=\"avg\"}", [randn(2, 3), torch.tensor([0, 1])],
          "f32[]", "nll_loss: invalid reduction 'avg' (expected none, mean or sum)")
add_error("cross_entropy_prob_target_shape", "cross_entropy(%a, %b, none)", [randn(3, 4), randn(3, 5)], "f32[]",
          "cross_entropy: probability target of shape [3,5] must have the input's shape [3,4]")
add_error("nll_loss_target_i32", "nll_loss(%a, %b)", [randn(2, 3), torch.tensor([0, 1], dtype=torch.int32)], "f32[]",
          "nll_loss: expected target dtype to be i64 or u8, but got i32")
add_error("nll_loss_weight_shape", "nll_loss(%a, %b, %c)", [randn(2, 3), torch.tensor([0, 1]), torch.rand(4)], "f32[]",
          "nll_loss: weight tensor should be defined either for all 3 classes or no classes but got weight tensor of "
          "shape: [4]")
add_error("cross_entropy_label_smoothing_range", "cross_entropy(%a, %b) {label_smoothing=1.5}",
          [randn(2, 3), torch.tensor([0, 1])], "f32[]",
          "cross_entropy: label_smoothing must be between 0.0 and 1.0, got 1.5")
add_error("mse_loss_broadcast", "mse_loss(%a, %b)", [randn(3), randn(4)], "f32[]",
          "mse_loss: the size of input [3] must match (or broadcast with) target [4]")

add_error("conv2d_input_rank", "conv2d(%a, %b, none)", [randn(3, 4), randn(2, 3, 1, 1)], "f32[2,3,4]",
          "conv2d: expected 3D (unbatched) or 4D (batched) input, got shape [3,4]")
add_error("conv2d_weight_rank", "conv2d(%a, %b, none)", [randn(1, 2, 5, 5), randn(3, 2, 3)], "f32[1,3,3,3]",
          "conv2d: expected 4-D weight, got shape [3,2,3]")
add_error("conv2d_groups_zero", "conv2d(%a, %b, none) {groups=0}", [randn(1, 2, 5, 5), randn(3, 2, 3, 3)],
          "f32[1,3,3,3]", "conv2d: non-positive groups is not supported, got 0")
add_error("conv2d_out_channels_groups", "conv2d(%a, %b, none) {groups=2}", [randn(1, 4, 5, 5), randn(3, 2, 3, 3)],
          "f32[1,3,3,3]", "conv2d: given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight "
          "of size [3,2,3,3] instead")
add_error("conv2d_bias_shape", "conv2d(%a, %b, %c)", [randn(1, 2, 5, 5), randn(3, 2, 3, 3), randn(4)], "f32[1,3,3,3]",
          "conv2d: given weight of size [3,2,3,3], expected bias to be 1-dimensional with 3 elements, but got bias of "
          "size [4] instead")
add_error("conv2d_stride_zero", "conv2d(%a, %b, none) {stride=[1, 0]}", [randn(1, 2, 5, 5), randn(3, 2, 3, 3)],
          "f32[1,3,3,3]", "conv2d: non-positive stride is not supported, got stride=[1, 0]")
add_error("conv2d_padding_negative", "conv2d(%a, %b, none) {padding=[-1]}", [randn(1, 2, 5, 5), randn(3, 2, 3, 3)],
          "f32[1,3,3,3]", "conv2d: negative padding is not supported, got padding=[-1, -1]")
add_error("conv2d_dilation_zero", "conv2d(%a, %b, none) {dilation=[0]}", [randn(1, 2, 5, 5), randn(3, 2, 3, 3)],
          "f32[1,3,3,3]", "conv2d: dilation should be greater than zero, got dilation=[0, 0]")
add_error("conv2d_kernel_too_big", "conv2d(%a, %b, none)", [randn(1, 1, 3, 3), randn(1, 1, 5, 4)], "f32[1,1,1,1]",
          "conv2d: calculated padded input size per channel: (3 x 3). Kernel size: (5 x 4). Kernel size can't be "
          "greater than actual input size")

add_error("max_pool2d_kernel_empty", "max_pool2d(%a) {kernel_size=[]}", [randn(1, 1, 4, 4)], "f32[1,1,4,4]",
          "max_pool2d: kernel_size must have 1 or 2 values, got an empty list")
add_error("max_pool2d_kernel_zero", "max_pool2d(%a) {kernel_size=[2, 0]}", [randn(1, 1, 4, 4)], "f32[1,1,4,4]",
          "max_pool2d: kernel size should be greater than zero, got 0")
add_error("avg_pool2d_stride_zero", "avg_pool2d(%a) {kernel_size=[2], stride=[0]}", [randn(1, 1, 4, 4)],
          "f32[1,1,4,4]", "avg_pool2d: stride should be greater than zero, got 0")
add_error("max_pool2d_dilation_zero", "max_pool2d(%a) {dilation=[0], kernel_size=[2]}", [randn(1, 1, 4, 4)],
          "f32[1,1,4,4]", "max_pool2d: dilation should be greater than zero, got 0")
add_error("avg_pool2d_output_too_small", "avg_pool2d(%a) {kernel_size=[3], stride=[1]}", [randn(1, 1, 2, 2)],
          "f32[1,1,1,1]", "avg_pool2d: given input size [1,1,2,2], calculated output size (0x0) is too small")
add_error("avg_pool2d_divisor_zero", "avg_pool2d(%a) {divisor_override=0, kernel_size=[2]}", [randn(1, 1, 4, 4)],
          "f32[1,1,2,2]", "avg_pool2d: divisor must be not zero")
add_error("adaptive_avg_pool2d_negative_size", "adaptive_avg_pool2d(%a) {output_size=[2, -1]}", [randn(1, 1, 4, 4)],
          "f32[1,1,2,2]",
          "adaptive_avg_pool2d: output_size must be 1 or 2 non-negative values, got output_size=[2, -1]")
add_error("adaptive_avg_pool2d_empty_input", "adaptive_avg_pool2d(%a) {output_size=[2]}", [randn(1, 0, 3)],
          "f32[1,2,2]", "adaptive_avg_pool2d: expected input to have non-zero size for non-batch dimensions, but input "
          "has sizes [1,0,3]")
add_error("upsample_bilinear2d_rank", "upsample_bilinear2d(%a) {align_corners=false, output_size=[4, 4]}",
          [randn(2, 3, 4)], "f32[2,3,4]",
          "upsample_bilinear2d: expected a 4-D input [N, C, H, W], got shape [2,3,4]")
add_error("upsample_bilinear2d_size_count", "upsample_bilinear2d(%a) {align_corners=false, output_size=[4]}",
          [randn(1, 1, 2, 2)], "f32[1,1,4,4]", "upsample_bilinear2d: output_size must have 2 values, got output_size=[4]")
add_error("upsample_bilinear2d_no_size", "upsample_bilinear2d(%a) {align_corners=false, output_size=none, scales_h=2.0}",
          [randn(1, 1, 2, 2)], "f32[1,1,4,4]", "upsample_bilinear2d: give output_size, or both scales_h and scales_w")
add_error("upsample_bilinear2d_zero_size", "upsample_bilinear2d(%a) {align_corners=false, output_size=[0, 3]}",
          [randn(1, 1, 2, 2)], "f32[1,1,0,3]",
          "upsample_bilinear2d: input and output sizes should be greater than 0, but got input (H: 2, W: 2) "
          "output (H: 0, W: 3)")
add_error("upsample_bilinear2d_empty_input", "upsample_bilinear2d(%a) {align_corners=false, output_size=[2, 3]}",
          [randn(1, 0, 2, 2)], "f32[1,0,2,3]",
          "upsample_bilinear2d: non-empty 4D data tensor expected but got a tensor with sizes [1,0,2,2]")
add_error("upsample_bilinear2d_int", "upsample_bilinear2d(%a) {align_corners=false, output_size=[2, 3]}",
          [randint(0, 5, 1, 1, 2, 2)], "i64[1,1,2,3]", "upsample_bilinear2d: not implemented for 'i64' (operand 0 must be floating)")
add_error("dropout_p_range", "dropout(%a) {p=1.5, train=true}", [randn(3)], "f32[3]",
          "dropout: dropout probability has to be between 0 and 1, but got 1.5")

add_error("sdpa_mask_shape", "scaled_dot_product_attention(%a, %b, %c, %d)", [Q, K, V, rand_bool(5, 6)],
          "f32[2,3,4,5]",
          "scaled_dot_product_attention: attn_mask of shape [5,6] is not broadcastable to the attention scores "
          "[2,3,4,6]")
add_error("sdpa_causal_with_mask", "scaled_dot_product_attention(%a, %b, %c, %d) {is_causal=true}",
          [Q, K, V, rand_bool(4, 6)], "f32[2,3,4,5]",
          "scaled_dot_product_attention: explicit attn_mask should not be set when is_causal=True")
