// Normalization, losses and neural-network ops of the functional API.
#include "frontend/functional.h"
#include "frontend/op_builder.h"

namespace kiln {

using detail::OpBuilder;

Tensor softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype, CallSite loc) {
  return OpBuilder(OpKind::Softmax, loc).operand(x).attr("dim", dim).attr("dtype", dtype).one();
}
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype, CallSite loc) {
  return OpBuilder(OpKind::LogSoftmax, loc).operand(x).attr("dim", dim).attr("dtype", dtype).one();
}
Tensor layer_norm(const Tensor& input, IntList normalized_shape, const Tensor& weight, const Tensor& bias, double eps,
                  CallSite loc) {
  return OpBuilder(OpKind::LayerNorm, loc)
      .operand(input)
      .attr("normalized_shape", normalized_shape)
      .operand(weight)
      .operand(bias)
      .attr("eps", eps)
      .one();
}
Tensor rms_norm(const Tensor& input, IntList normalized_shape, const Tensor& weight, std::optional<double> eps,
                CallSite loc) {
  return OpBuilder(OpKind::RmsNorm, loc)
      .operand(input)
      .attr("normalized_shape", normalized_shape)
      .operand(weight)
      .attr("eps", eps)
      .one();
}
Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum, double eps, CallSite loc) {
  return OpBuilder(OpKind::BatchNorm, loc)
      .operand(input)
      .operand(weight)
      .operand(bias)
      .operand(running_mean)
      .operand(running_var)
      .attr("training", training)
      .attr("momentum", momentum)
      .attr("eps", eps)
      .one();
}
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps,
                  CallSite loc) {
  return OpBuilder(OpKind::GroupNorm, loc)
      .operand(input)
      .attr("num_groups", num_groups)
      .operand(weight)
      .operand(bias)
      .attr("eps", eps)
      .one();
}
Tensor nll_loss(const Tensor& x, const Tensor& target, const Tensor& weight, const std::string& reduction,
                int64_t ignore_index, CallSite loc) {
  return OpBuilder(OpKind::NllLoss, loc)
      .operand(x)
      .operand(target)
      .operand(weight)
      .attr("reduction", reduction)
      .attr("ignore_index", ignore_index)
      .one();
}
Tensor cross_entropy(const Tensor& x, const Tensor& target, const Tensor& weight, const std::string& reduction,
                     int64_t ignore_index, double label_smoothing, CallSite loc) {
  return OpBuilder(OpKind::CrossEntropy, loc)
      .operand(x)
      .operand(target)
      .operand(weight)
      .attr("reduction", reduction)
      .attr("ignore_index", ignore_index)
      .attr("label_smoothing", label_smoothing)
      .one();
}
Tensor mse_loss(const Tensor& x, const Tensor& target, const std::string& reduction, CallSite loc) {
  return OpBuilder(OpKind::MseLoss, loc).operand(x).operand(target).attr("reduction", reduction).one();
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride, IntList padding,
              IntList dilation, int64_t groups, CallSite loc) {
  return OpBuilder(OpKind::Conv2d, loc)
      .operand(input)
      .operand(weight)
      .operand(bias)
      .attr("stride", stride)
      .attr("padding", padding)
      .attr("dilation", dilation)
      .attr("groups", groups)
      .one();
}
Tensor max_pool2d(const Tensor& x, IntList kernel_size, IntList stride, IntList padding, IntList dilation,
                  bool ceil_mode, CallSite loc) {
  return OpBuilder(OpKind::MaxPool2d, loc)
      .operand(x)
      .attr("kernel_size", kernel_size)
      .attr("stride", stride)
      .attr("padding", padding)
      .attr("dilation", dilation)
      .attr("ceil_mode", ceil_mode)
      .one();
}
Tensor avg_pool2d(const Tensor& x, IntList kernel_size, IntList stride, IntList padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override, CallSite loc) {
  return OpBuilder(OpKind::AvgPool2d, loc)
      .operand(x)
      .attr("kernel_size", kernel_size)
      .attr("stride", stride)
      .attr("padding", padding)
      .attr("ceil_mode", ceil_mode)
      .attr("count_include_pad", count_include_pad)
      .attr("divisor_override", divisor_override)
      .one();
}
Tensor adaptive_avg_pool2d(const Tensor& x, IntList output_size, CallSite loc) {
  return OpBuilder(OpKind::AdaptiveAvgPool2d, loc).operand(x).attr("output_size", output_size).one();
}

Tensor upsample_bilinear2d(const Tensor& x, IntList output_size, bool align_corners, CallSite loc) {
  return OpBuilder(OpKind::UpsampleBilinear2d, loc)
      .operand(x)
      .attr("output_size", output_size)
      .attr("align_corners", align_corners)
      .one();
}
Tensor dropout(const Tensor& input, double p, bool train, int64_t seed, CallSite loc) {
  return OpBuilder(OpKind::Dropout, loc).operand(input).attr("p", p).attr("train", train).attr("seed", seed).one();
}
Tensor dropout(const Tensor& input, double p, bool train, const Tensor& rng_state, int64_t seed, CallSite loc) {
  return OpBuilder(OpKind::Dropout, loc)
      .operand(input)
      .operand(rng_state)
      .attr("p", p)
      .attr("train", train)
      .attr("seed", seed)
      .one();
}
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale, int64_t seed, CallSite loc) {
  return OpBuilder(OpKind::ScaledDotProductAttention, loc)
      .operand(query)
      .operand(key)
      .operand(value)
      .operand(attn_mask)
      .attr("dropout_p", dropout_p)
      .attr("is_causal", is_causal)
      .attr("scale", scale)
      .attr("seed", seed)
      .one();
}

}  // namespace kiln
