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
    // Networks: vision. convolution, _native_batch_norm_legit_no_training, the in-place forms,
    // hardswish, hardsigmoid, relu6, unbind, split_with_sizes and unflatten go through convert_vision.cc.
    AtenOpMapping{"aten.conv2d.default", "conv2d"},
    AtenOpMapping{"aten.batch_norm.default", "batch_norm", kBatchNormDropped},
    AtenOpMapping{"aten.max_pool2d.default", "max_pool2d"},
    AtenOpMapping{"aten.avg_pool2d.default", "avg_pool2d"},
    AtenOpMapping{"aten.adaptive_avg_pool2d.default", "adaptive_avg_pool2d"},
    AtenOpMapping{"aten.hardtanh.default", "hardtanh"},
    AtenOpMapping{"aten.select.int", "select"},
    AtenOpMapping{"aten.chunk.default", "chunk"},
    AtenOpMapping{"aten.split.Tensor", "split"},
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
