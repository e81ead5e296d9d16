// The ATen-to-kiln op table (aten_op_table.h). A row whose kiln op or argument names drift from
// ops.def fails the AtenOpTable unit test, which checks every row against the kiln schema.
#include "import/aten_op_table.h"

#include <array>

namespace kiln::pt2 {
namespace {

using D = DroppedWhen;

constexpr DroppedArg kLayerNormDropped[] = {{"cudnn_enable", D::Any}};
constexpr DroppedArg kSoftmaxDropped[] = {{"half_to_float", D::False}};
constexpr DroppedArg kExpandDropped[] = {{"implicit", D::Any}};
constexpr DroppedArg kMemoryFormatDropped[] = {{"memory_format", D::NoneOrContiguous}};
constexpr DroppedArg kSdpaDropped[] = {{"enable_gqa", D::False}};
constexpr DroppedArg kEmbeddingDropped[] = {{"scale_grad_by_freq", D::False}, {"sparse", D::False}};
// Networks: transformers. A creation op's placement (all CPU, strided, unpinned), and a
// conversion's copy flags, which do not change values.
constexpr DroppedArg kCreationDropped[] = {
    {"layout", D::NoneOrStrided}, {"device", D::NoneOrCpu}, {"pin_memory", D::False}};
constexpr DroppedArg kLikeDropped[] = {{"layout", D::NoneOrStrided},
                                       {"device", D::NoneOrCpu},
                                       {"pin_memory", D::False},
                                       {"memory_format", D::NoneOrContiguous}};
constexpr DroppedArg kToDropped[] = {
    {"layout", D::NoneOrStrided}, {"device", D::NoneOrCpu}, {"pin_memory", D::False},
    {"non_blocking", D::Any},     {"copy", D::Any},         {"memory_format", D::NoneOrContiguous}};
constexpr DroppedArg kGatherDropped[] = {{"sparse_grad", D::False}};

constexpr DroppedArg kBatchNormDropped[] = {{"cudnn_enabled", D::Any}};

constexpr std::array kTable = {
    // Linear algebra.
    AtenOpMapping{"aten.linear.default", "linear"},
    AtenOpMapping{"aten.addmm.default", "addmm"},
    AtenOpMapping{"aten.mm.default", "mm"},
    AtenOpMapping{"aten.bmm.default", "bmm"},
    AtenOpMapping{"aten.matmul.default", "matmul"},
    // Elementwise.
    AtenOpMapping{"aten.add.Tensor", "add"},
    AtenOpMapping{"aten.add.Scalar", "add"},
    AtenOpMapping{"aten.sub.Tensor", "sub"},
    AtenOpMapping{"aten.sub.Scalar", "sub"},
    AtenOpMapping{"aten.mul.Tensor", "mul"},
    AtenOpMapping{"aten.mul.Scalar", "mul"},
    AtenOpMapping{"aten.div.Tensor", "div"},
    AtenOpMapping{"aten.div.Scalar", "div"},
    AtenOpMapping{"aten.div.Tensor_mode", "div"},
    AtenOpMapping{"aten.neg.default", "neg"},
    AtenOpMapping{"aten.exp.default", "exp"},
    AtenOpMapping{"aten.sqrt.default", "sqrt"},
    AtenOpMapping{"aten.rsqrt.default", "rsqrt"},
    AtenOpMapping{"aten.tanh.default", "tanh"},
    AtenOpMapping{"aten.sigmoid.default", "sigmoid"},
    AtenOpMapping{"aten.relu.default", "relu"},
    AtenOpMapping{"aten.gelu.default", "gelu"},
    AtenOpMapping{"aten.silu.default", "silu"},
    AtenOpMapping{"aten.clamp.default", "clamp"},
    // Views and layout.
    AtenOpMapping{"aten.view.default", "view"},
    AtenOpMapping{"aten.reshape.default", "reshape"},
    AtenOpMapping{"aten.permute.default", "permute"},
    AtenOpMapping{"aten.t.default", "t"},
    AtenOpMapping{"aten.transpose.int", "transpose"},
    AtenOpMapping{"aten.unsqueeze.default", "unsqueeze"},
    AtenOpMapping{"aten.squeeze.dim", "squeeze"},
    AtenOpMapping{"aten.squeeze.dims", "squeeze"},
    AtenOpMapping{"aten.expand.default", "expand", kExpandDropped},
    AtenOpMapping{"aten.flatten.using_ints", "flatten"},
    AtenOpMapping{"aten.slice.Tensor", "slice"},
    AtenOpMapping{"aten.contiguous.default", "contiguous", kMemoryFormatDropped},
    AtenOpMapping{"aten.clone.default", "clone", kMemoryFormatDropped},
    AtenOpMapping{"aten.cat.default", "cat"},
    // Reductions and normalization.
    AtenOpMapping{"aten.sum.default", "sum"},
    AtenOpMapping{"aten.sum.dim_IntList", "sum"},
    AtenOpMapping{"aten.mean.default", "mean"},
    AtenOpMapping{"aten.mean.dim", "mean"},
    AtenOpMapping{"aten.softmax.int", "softmax"},
    AtenOpMapping{"aten._softmax.default", "softmax", kSoftmaxDropped},
    AtenOpMapping{"aten.layer_norm.default", "layer_norm", kLayerNormDropped},
    // Networks.
    AtenOpMapping{"aten.dropout.default", "dropout"},
    AtenOpMapping{"aten.embedding.default", "embedding", kEmbeddingDropped},
    AtenOpMapping{"aten.scaled_dot_product_attention.default", "scaled_dot_product_attention", kSdpaDropped},
    // Networks: transformers (masks, positions, rotary embeddings, dtype conversions). Nodes
    // that need more than a row (arange.default, new_ones, type_as, alias, detach,
    // split_with_sizes, unbind, conv1d, add_ and friends, copy, pad, cross_entropy_loss, nll_loss,
    // _assert_tensor_metadata) are rewritten into these first (convert_text.h).
    AtenOpMapping{"aten.arange.start", "arange", kCreationDropped},
    AtenOpMapping{"aten.arange.start_step", "arange", kCreationDropped},
    AtenOpMapping{"aten.full.default", "full", kCreationDropped},
    AtenOpMapping{"aten.zeros.default", "zeros", kCreationDropped},
    AtenOpMapping{"aten.ones.default", "ones", kCreationDropped},
    AtenOpMapping{"aten.full_like.default", "full_like", kLikeDropped},
    AtenOpMapping{"aten.zeros_like.default", "zeros_like", kLikeDropped},
    AtenOpMapping{"aten.ones_like.default", "ones_like", kLikeDropped},
    AtenOpMapping{"aten._to_copy.default", "_to_copy", kToDropped},
    AtenOpMapping{"aten.to.dtype", "_to_copy", kToDropped},
    AtenOpMapping{"aten.to.dtype_layout", "_to_copy", kToDropped},
    AtenOpMapping{"aten.to.device", "_to_copy", kToDropped},
    AtenOpMapping{"aten.eq.Tensor", "eq"},
    AtenOpMapping{"aten.eq.Scalar", "eq"},
    AtenOpMapping{"aten.ne.Tensor", "ne"},
    AtenOpMapping{"aten.ne.Scalar", "ne"},
    AtenOpMapping{"aten.lt.Tensor", "lt"},
    AtenOpMapping{"aten.lt.Scalar", "lt"},
    AtenOpMapping{"aten.le.Tensor", "le"},
    AtenOpMapping{"aten.le.Scalar", "le"},
    AtenOpMapping{"aten.gt.Tensor", "gt"},
    AtenOpMapping{"aten.gt.Scalar", "gt"},
    AtenOpMapping{"aten.ge.Tensor", "ge"},
    AtenOpMapping{"aten.ge.Scalar", "ge"},
    AtenOpMapping{"aten.where.self", "where"},
    AtenOpMapping{"aten.where.ScalarSelf", "where"},
    AtenOpMapping{"aten.where.ScalarOther", "where"},
    AtenOpMapping{"aten.where.Scalar", "where"},
    AtenOpMapping{"aten.masked_fill.Scalar", "masked_fill"},
    AtenOpMapping{"aten.masked_fill.Tensor", "masked_fill"},
    AtenOpMapping{"aten.logical_not.default", "logical_not"},
    AtenOpMapping{"aten.logical_and.default", "logical_and"},
    AtenOpMapping{"aten.logical_or.default", "logical_or"},
    AtenOpMapping{"aten.bitwise_not.default", "bitwise_not"},
    AtenOpMapping{"aten.bitwise_and.Tensor", "bitwise_and"},
    AtenOpMapping{"aten.bitwise_or.Tensor", "bitwise_or"},
    AtenOpMapping{"aten.__and__.Tensor", "bitwise_and"},
    AtenOpMapping{"aten.__or__.Tensor", "bitwise_or"},
    AtenOpMapping{"aten.pow.Tensor_Scalar", "pow"},
    AtenOpMapping{"aten.pow.Tensor_Tensor", "pow"},
    AtenOpMapping{"aten.abs.default", "abs"},
    AtenOpMapping{"aten.log.default", "log"},
    AtenOpMapping{"aten.log1p.default", "log1p"},
    AtenOpMapping{"aten.sin.default", "sin"},
    AtenOpMapping{"aten.cos.default", "cos"},
    AtenOpMapping{"aten.erf.default", "erf"},
    AtenOpMapping{"aten.reciprocal.default", "reciprocal"},
    AtenOpMapping{"aten.minimum.default", "minimum"},
    AtenOpMapping{"aten.maximum.default", "maximum"},
    AtenOpMapping{"aten.min.other", "minimum"},
    AtenOpMapping{"aten.max.other", "maximum"},
    AtenOpMapping{"aten.tril.default", "tril"},
    AtenOpMapping{"aten.triu.default", "triu"},
    AtenOpMapping{"aten.cumsum.default", "cumsum"},
    AtenOpMapping{"aten.any.default", "any"},
    AtenOpMapping{"aten.any.dim", "any"},
    AtenOpMapping{"aten.any.dims", "any"},
    AtenOpMapping{"aten.all.default", "all"},
    AtenOpMapping{"aten.all.dim", "all"},
    AtenOpMapping{"aten.argmax.default", "argmax"},
    AtenOpMapping{"aten.amax.default", "amax"},
    AtenOpMapping{"aten.select.int", "select"},
    AtenOpMapping{"aten.slice_scatter.default", "slice_scatter"},
    AtenOpMapping{"aten.select_scatter.default", "select_scatter"},
    AtenOpMapping{"aten.index.Tensor", "index"},
    AtenOpMapping{"aten.index_select.default", "index_select"},
    AtenOpMapping{"aten.gather.default", "gather", kGatherDropped},
    AtenOpMapping{"aten.split.Tensor", "split"},
    AtenOpMapping{"aten.chunk.default", "chunk"},
    AtenOpMapping{"aten.repeat.default", "repeat"},
    AtenOpMapping{"aten.log_softmax.int", "log_softmax"},
    AtenOpMapping{"aten.constant_pad_nd.default", "constant_pad_nd"},
    AtenOpMapping{"aten.cross_entropy.default", "cross_entropy"},
    AtenOpMapping{"aten.nll_loss.default", "nll_loss"},
    AtenOpMapping{"aten.conv2d.default", "conv2d"},
    AtenOpMapping{"aten.rms_norm.default", "rms_norm"},
    // Networks: vision (conv2d, select, chunk and split are rows of the transformers' section).
    // convolution, _native_batch_norm_legit_no_training, max_pool2d_with_indices, the in-place
    // activations, hardswish, hardsigmoid, relu6 and unflatten go through convert_vision.cc.
    AtenOpMapping{"aten.batch_norm.default", "batch_norm", kBatchNormDropped},
    AtenOpMapping{"aten.max_pool2d.default", "max_pool2d"},
    AtenOpMapping{"aten.avg_pool2d.default", "avg_pool2d"},
    AtenOpMapping{"aten.adaptive_avg_pool2d.default", "adaptive_avg_pool2d"},
    AtenOpMapping{"aten.hardtanh.default", "hardtanh"},
    AtenOpMapping{"aten.roll.default", "roll"},
    // Mixture-of-experts ops: the router's top-k experts, the tokens sorted by expert, and the
    // tokens per expert (transformers' grouped_mm_fallback: convert_moe.h).
    AtenOpMapping{"aten.topk.default", "topk"},
    AtenOpMapping{"aten.sort.default", "sort"},
    AtenOpMapping{"aten.sort.stable", "sort"},
    AtenOpMapping{"aten.histc.default", "histc"},
    // Misc ops (DeepLabV3 and FCN's upsampling, the mixture-of-experts models' dispatch). Nodes
    // that need more than a row go through convert_misc.cc first: upsample_bilinear2d's
    // scale_factors and .default, floor_divide, empty_like, empty_permuted, repeat_interleave;
    // index_put_ is convert_text.cc's in-place rewrite into index_put.
    AtenOpMapping{"aten.upsample_bilinear2d.vec", "upsample_bilinear2d"},
    AtenOpMapping{"aten.div.Scalar_mode", "div"},
    AtenOpMapping{"aten.empty.memory_format", "empty", kLikeDropped},
    AtenOpMapping{"aten.index_put.default", "index_put"},
};

}  // namespace

const AtenOpMapping* find_aten_op(std::string_view target) {
  constexpr std::string_view kPrefix = "torch.ops.";
  if (target.substr(0, kPrefix.size()) == kPrefix) target.remove_prefix(kPrefix.size());
  for (const AtenOpMapping& row : kTable)
    if (row.aten == target) return &row;
  return nullptr;
}

std::span<const AtenOpMapping> aten_op_table() { return kTable; }

}  // namespace kiln::pt2
