// Shape rules of the losses and nn ops (nll_loss, cross_entropy, mse_loss, conv2d, pooling,
// scaled_dot_product_attention) and the dtype rules only they use.
#include <string>

#include "ops/type_rules.h"
#include "ops/type_rules_util.h"
#include "ops/upsample_geometry.h"

namespace kiln {

namespace {

Expected<std::vector<Shape>> one(Shape s) { return std::vector<Shape>{std::move(s)}; }

// "[a, b]" for an int-list attribute in a message.
std::string int_list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

Status check_reduction(std::string_view op, const std::string& r) {
  if (r == "none" || r == "mean" || r == "sum") return Status::ok();
  return make_error(op, ": invalid reduction '", r, "' (expected none, mean or sum)");
}

// A 3-D (unbatched) or 4-D image tensor; `spatial` gets the static H and W.
Status check_image(std::string_view op, const Shape& s, int64_t spatial[2]) {
  if (s.rank() != 3 && s.rank() != 4)
    return make_error(op, ": expected 3D (unbatched) or 4D (batched) input, got shape ", s.to_string());
  for (int i = 0; i < 2; ++i) {
    KILN_ASSIGN_OR_RETURN(int64_t v, static_dim(op, s[s.rank() - 2 + i], "a spatial dim"));
    spatial[i] = v;
  }
  return Status::ok();
}

// Static output sizes must be positive; symbolic ones are guarded by the caller.
Status check_output_size(std::string_view op, const Shape& in, const Dim& oh, const Dim& ow) {
  if ((oh.is_symbolic() || oh.value() > 0) && (ow.is_symbolic() || ow.value() > 0)) return Status::ok();
  return make_error(op, ": given input size ", in.to_string(), ", calculated output size (", oh.to_string(), "x",
                    ow.to_string(), ") is too small");
}

}  // namespace

Expected<std::vector<Shape>> shape_rule_loss(const TypeCall& call) {
  const std::string_view op = call.name();
  const TensorType& in = operand_type(call, 0);
  const TensorType& target = operand_type(call, 1);
  KILN_TRY(check_reduction(op, call.attr_str("reduction")));
  if (in.shape.rank() == 0) return make_error(op, ": input must be at least 1-D (classes), got a 0-d tensor");
  const int class_dim = in.shape.rank() == 1 ? 0 : 1;
  Shape per_item = in.shape;
  per_item.dims().erase(per_item.dims().begin() + class_dim);
  const bool probabilities = call.op() == OpKind::CrossEntropy && is_floating(target.dtype);
  if (probabilities) {
    if (!(target.shape == in.shape))
      return make_error(op, ": probability target of shape ", target.shape.to_string(), " must have the input's shape ",
                        in.shape.to_string());
  } else {
    if (target.dtype != DType::I64 && target.dtype != DType::U8)
      return make_error(op, ": expected target dtype to be i64 or u8, but got ", dtype_name(target.dtype));
    if (!(target.shape == per_item))
      return make_error(op, ": expected target of shape ", per_item.to_string(), " for input of shape ",
                        in.shape.to_string(), ", got ", target.shape.to_string());
  }
  if (call.operands.size() > 2 && call.operands[2].is_tensor()) {
    const Shape& w = operand_type(call, 2).shape;
    if (w.rank() != 1 || !(w[0] == in.shape[class_dim]))
      return make_error(op, ": weight tensor should be defined either for all ", in.shape[class_dim].to_string(),
                        " classes or no classes but got weight tensor of shape: ", w.to_string());
  }
  if (call.attr_str("reduction") != "none") return one(Shape());
  return one(per_item);
}

Expected<std::vector<Shape>> shape_rule_mse_loss(const TypeCall& call) {
  KILN_TRY(check_reduction("mse_loss", call.attr_str("reduction")));
  const Shape& a = operand_type(call, 0).shape;
  const Shape& b = operand_type(call, 1).shape;
  auto s = broadcast_shapes(a, b, call.guards);
  if (!s)
    return make_error("mse_loss: the size of input ", a.to_string(), " must match (or broadcast with) target ",
                      b.to_string());
  if (call.attr_str("reduction") != "none") return one(Shape());
  return one(*s);
}

Expected<std::vector<Shape>> shape_rule_conv2d(const TypeCall& call) {
  const Shape& in = operand_type(call, 0).shape;
  const Shape& w = operand_type(call, 1).shape;
  if (in.rank() != 3 && in.rank() != 4)
    return make_error("conv2d: expected 3D (unbatched) or 4D (batched) input, got shape ", in.to_string());
  const Dim hw[2] = {in[in.rank() - 2], in[in.rank() - 1]};
  if (!is_floating(operand_type(call, 0).dtype))
    return make_error("conv2d: not implemented for '", dtype_name(operand_type(call, 0).dtype), "'");
  if (w.rank() != 4) return make_error("conv2d: expected 4-D weight, got shape ", w.to_string());
  KILN_ASSIGN_OR_RETURN(int64_t out_c, static_dim("conv2d", w[0], "out channels"));
  KILN_ASSIGN_OR_RETURN(int64_t wc, static_dim("conv2d", w[1], "weight channels"));
  KILN_ASSIGN_OR_RETURN(int64_t kh, static_dim("conv2d", w[2], "kernel height"));
  KILN_ASSIGN_OR_RETURN(int64_t kw, static_dim("conv2d", w[3], "kernel width"));
  const int64_t groups = call.attr_int("groups");
  if (groups <= 0) return make_error("conv2d: non-positive groups is not supported, got ", groups);
  const Dim& in_c = in[in.rank() - 3];
  if (in_c.is_static() && in_c.value() != wc * groups)
    return make_error("conv2d: given groups=", groups, ", weight of size ", w.to_string(), ", expected input",
                      in.to_string(), " to have ", wc * groups, " channels, but got ", in_c.value(),
                      " channels instead");
  if (out_c % groups != 0)
    return make_error("conv2d: given groups=", groups, ", expected weight to be divisible by ", groups,
                      " at dimension 0, but got weight of size ", w.to_string(), " instead");
  if (call.operands.size() > 2 && call.operands[2].is_tensor()) {
    const Shape& b = operand_type(call, 2).shape;
    if (b.rank() != 1 || !(b[0] == out_c))
      return make_error("conv2d: given weight of size ", w.to_string(), ", expected bias to be 1-dimensional with ",
                        out_c, " elements, but got bias of size ", b.to_string(), " instead");
  }
  KILN_ASSIGN_OR_RETURN(auto stride, pair_attr(call, "stride", {1, 1}));
  KILN_ASSIGN_OR_RETURN(auto pad, pair_attr(call, "padding", {0, 0}));
  KILN_ASSIGN_OR_RETURN(auto dil, pair_attr(call, "dilation", {1, 1}));
  for (int i = 0; i < 2; ++i) {
    if (stride[i] <= 0)
      return make_error("conv2d: non-positive stride is not supported, got stride=", int_list(stride));
    if (pad[i] < 0) return make_error("conv2d: negative padding is not supported, got padding=", int_list(pad));
    if (dil[i] <= 0) return make_error("conv2d: dilation should be greater than zero, got dilation=", int_list(dil));
  }
  const int64_t k[2] = {kh, kw};
  Dim o[2];
  for (int i = 0; i < 2; ++i) {
    const int64_t extent = dil[i] * (k[i] - 1) + 1;
    const Dim padded = hw[i] + Dim(2 * pad[i]);
    if (hw[i].is_symbolic()) {
      // floor((H+2p-d(k-1)-1)/s)+1, assuming the padded input holds one window.
      call.assume(ShapeGuard{padded.expr(), GuardRel::Ge, SymExpr(extent)});
      o[i] = window_output_dim(hw[i], k[i], stride[i], pad[i], dil[i]);
      continue;
    }
    if (padded.value() < extent)
      return make_error("conv2d: calculated padded input size per channel: (", (hw[0] + Dim(2 * pad[0])).to_string(),
                        " x ", (hw[1] + Dim(2 * pad[1])).to_string(), "). Kernel size: (", kh, " x ", kw,
                        "). Kernel size can't be greater than actual input size");
    o[i] = window_output_size(hw[i].value(), k[i], stride[i], pad[i], dil[i], false);
  }
  std::vector<Dim> out;
  if (in.rank() == 4) out.push_back(in[0]);
  out.insert(out.end(), {Dim(out_c), o[0], o[1]});
  return one(Shape(std::move(out)));
}

Expected<std::vector<Shape>> shape_rule_pool2d(const TypeCall& call) {
  const std::string_view op = call.name();
  const Shape& in = operand_type(call, 0).shape;
  if (in.rank() != 3 && in.rank() != 4)
    return make_error(op, ": expected 3D (unbatched) or 4D (batched) input, got shape ", in.to_string());
  // As torch: only a batch dim may be empty (an empty window has no max, nor a mean).
  for (int d = in.rank() - 3; d < in.rank(); ++d)
    if (in[d].is_static() && in[d].value() == 0)
      return make_error(op, ": expected an input with non-zero sizes except an optional 0 batch dim, got shape ",
                        in.to_string());
  const Dim hw[2] = {in[in.rank() - 2], in[in.rank() - 1]};
  const bool ceil_mode = call.attr_bool("ceil_mode");
  KILN_ASSIGN_OR_RETURN(auto k, pair_attr(call, "kernel_size", {}));
  if (k.size() != 2) return make_error(op, ": kernel_size must have 1 or 2 values, got an empty list");
  KILN_ASSIGN_OR_RETURN(auto stride, pair_attr(call, "stride", k));
  KILN_ASSIGN_OR_RETURN(auto pad, pair_attr(call, "padding", {0, 0}));
  std::vector<int64_t> dil = {1, 1};
  const bool is_max = call.op() == OpKind::MaxPool2d;
  if (is_max) {
    KILN_ASSIGN_OR_RETURN(auto d, pair_attr(call, "dilation", {1, 1}));
    dil = d;
  }
  Dim o[2];
  for (int i = 0; i < 2; ++i) {
    if (k[i] <= 0) return make_error(op, ": kernel size should be greater than zero, got ", k[i]);
    if (stride[i] <= 0) return make_error(op, ": stride should be greater than zero, got ", stride[i]);
    if (dil[i] <= 0) return make_error(op, ": dilation should be greater than zero, got ", dil[i]);
    const int64_t effective = is_max ? (k[i] - 1) * dil[i] + 1 : k[i];
    if (pad[i] < 0 || pad[i] > effective / 2)
      return make_error(op, ": pad should be at most half of effective kernel size, but got pad=", pad[i],
                        ", kernel_size=", k[i], " and dilation=", dil[i]);
    if (hw[i].is_static()) {
      o[i] = window_output_size(hw[i].value(), k[i], stride[i], pad[i], dil[i], ceil_mode);
      continue;
    }
    // ceil_mode drops a last window that starts in the right padding: that needs a max().
    if (ceil_mode) KILN_TRY(static_dim(op, hw[i], "a spatial dim with ceil_mode"));
    o[i] = window_output_dim(hw[i], k[i], stride[i], pad[i], dil[i]);
    call.assume(ShapeGuard{o[i].expr(), GuardRel::Ge, SymExpr(1)});
  }
  KILN_TRY(check_output_size(op, in, o[0], o[1]));
  Shape out = in;
  out[in.rank() - 2] = o[0];
  out[in.rank() - 1] = o[1];
  return one(out);
}

Expected<std::vector<Shape>> shape_rule_adaptive_pool2d(const TypeCall& call) {
  const Shape& in = operand_type(call, 0).shape;
  int64_t hw[2];
  KILN_TRY(check_image("adaptive_avg_pool2d", in, hw));
  KILN_ASSIGN_OR_RETURN(auto size, pair_attr(call, "output_size", {}));
  if (size.size() != 2 || size[0] < 0 || size[1] < 0)
    return make_error("adaptive_avg_pool2d: output_size must be 1 or 2 non-negative values, got output_size=",
                      int_list(call.attr_ints("output_size")));
  for (int i = 0; i < 2; ++i)
    if (hw[i] == 0)
      return make_error(
          "adaptive_avg_pool2d: expected input to have non-zero size for non-batch dimensions, but "
          "input has sizes ",
          in.to_string());
  Shape out = in;
  out[in.rank() - 2] = size[0];
  out[in.rank() - 1] = size[1];
  return one(out);
}

// As ATen's upsample_2d_common_check: a 4-D input whose channels and spatial dims are not
// empty (the batch may be), the size output_size or the scaled input's, both positive.
Expected<std::vector<Shape>> shape_rule_upsample_bilinear2d(const TypeCall& call) {
  const std::string_view op = "upsample_bilinear2d";
  const Shape& in = operand_type(call, 0).shape;
  if (in.rank() != 4) return make_error(op, ": expected a 4-D input [N, C, H, W], got shape ", in.to_string());
  int64_t hw[2];
  for (int i = 0; i < 2; ++i) {
    KILN_ASSIGN_OR_RETURN(hw[i], static_dim(op, in[2 + i], "a spatial dim"));
  }
  if (in[1].is_static() && in[1].value() == 0)
    return make_error(op, ": non-empty 4D data tensor expected but got a tensor with sizes ", in.to_string());
  const std::optional<std::vector<int64_t>> size = call.attr_opt_ints("output_size");
  const std::optional<double> scales[2] = {call.attr_opt_float("scales_h"), call.attr_opt_float("scales_w")};
  int64_t out[2];
  if (size) {
    if (size->size() != 2) return make_error(op, ": output_size must have 2 values, got output_size=", int_list(*size));
    out[0] = (*size)[0];
    out[1] = (*size)[1];
  } else {
    if (!scales[0] || !scales[1]) return make_error(op, ": give output_size, or both scales_h and scales_w");
    for (int i = 0; i < 2; ++i) out[i] = upsample::scaled_size(hw[i], *scales[i]);
  }
  if (hw[0] <= 0 || hw[1] <= 0 || out[0] <= 0 || out[1] <= 0)
    return make_error(op, ": input and output sizes should be greater than 0, but got input (H: ", hw[0],
                      ", W: ", hw[1], ") output (H: ", out[0], ", W: ", out[1], ")");
  Shape result = in;
  result[2] = out[0];
  result[3] = out[1];
  return one(result);
}

Expected<std::vector<Shape>> shape_rule_sdpa(const TypeCall& call) {
  const Shape& q = operand_type(call, 0).shape;
  const Shape& k = operand_type(call, 1).shape;
  const Shape& v = operand_type(call, 2).shape;
  if (q.rank() < 2 || k.rank() < 2 || v.rank() < 2)
    return make_error("scaled_dot_product_attention: query, key and value must be at least 2-D, got ", q.to_string(),
                      ", ", k.to_string(), " and ", v.to_string());
  const int qr = q.rank(), kr = k.rank(), vr = v.rank();
  if (!(q[qr - 1] == k[kr - 1]) && q[qr - 1].is_static() && k[kr - 1].is_static())
    return make_error("scaled_dot_product_attention: query and key must have the same embedding dim, got ",
                      q.to_string(), " and ", k.to_string());
  if (!(k[kr - 2] == v[vr - 2]) && k[kr - 2].is_static() && v[vr - 2].is_static())
    return make_error("scaled_dot_product_attention: key and value must have the same sequence length, got ",
                      k.to_string(), " and ", v.to_string());
  // scores = q @ k^T : [..., L, S]; out = scores @ v : [..., L, Ev].
  Shape kt = k;
  std::swap(kt[kr - 1], kt[kr - 2]);
  KILN_ASSIGN_OR_RETURN(Shape scores, matmul_shape(q, kt));
  if (call.operands.size() > 3 && call.operands[3].is_tensor()) {
    const TensorType& mask = operand_type(call, 3);
    auto b = broadcast_shapes(mask.shape, scores, call.guards);
    if (!b || !(*b == scores))
      return make_error("scaled_dot_product_attention: attn_mask of shape ", mask.shape.to_string(),
                        " is not broadcastable to the attention scores ", scores.to_string());
  }
  KILN_ASSIGN_OR_RETURN(Shape out, matmul_shape(scores, v));
  return one(out);
}

Expected<std::vector<DType>> dtype_rule_softmax(const TypeCall& call) {
  const DType in = operand_type(call, 0).dtype;
  const DType out = call.attr_dtype("dtype").value_or(in);
  if (!is_floating(out))
    return make_error(call.name(), ": not implemented for ", dtype_name(out), " (expected a floating dtype)");
  return std::vector<DType>{out};
}

}  // namespace kiln
