// Decompositions of the normalizations (layer_norm, rms_norm, group_norm, batch_norm) into
// mean, var, sub, mul, rsqrt and reshape, with biased variances as the kernels compute them
// (kernels_norm.cc). Nodes the kernels would reject (normalized_shape or a parameter of the
// wrong shape, channels not divisible by groups) are declined.
#include <limits>

#include "passes/decompositions.h"

namespace kiln::decomp {

namespace {

// Whether every dim of x in `dims` has a static size.
bool static_dims(const Value* x, const std::vector<int64_t>& dims) {
  for (int64_t d : dims)
    if (!x->type().shape[static_cast<int>(d)].is_static()) return false;
  return true;
}

// (x - mean) * rsqrt(var + eps) over dims in x's compute dtype, var the biased variance; mean taken as 0 unless
// `center`. The variance is var(x, correction=0) after mean(x) when the dims are static: the
// var_mean pattern, which the CPU backend lowers to one Welford pass computing both
// (lower/lower_welford.cc) and the var rule otherwise decomposes into mean((x - mean)^2),
// the form used directly for symbolic dims (var's rule needs the count).
Value* normalize(GraphBuilder& b, Value* x, const std::vector<int64_t>& dims, double eps, bool center) {
  x = b.cast(x, compute_dtype(x->type().dtype));
  Value* mean = center ? reduce(b, OpKind::Mean, x, dims, true) : nullptr;
  Value* d = center ? sub(b, x, mean) : x;
  Value* var = nullptr;
  if (center && static_dims(x, dims)) {
    var = b.apply1(OpKind::Var, {x},
                   {{"dim", dims}, {"correction", AttrValue::from_scalar(Scalar(int64_t{0}))}, {"keepdim", true}});
  } else {
    var = reduce(b, OpKind::Mean, mul(b, d, d), dims, true);
  }
  return mul(b, d, unary(b, OpKind::Rsqrt, add(b, var, Scalar(eps))));
}

Value* affine(GraphBuilder& b, Value* y, Value* w, Value* bias) {
  if (w != nullptr) y = mul(b, y, w);
  if (bias != nullptr) y = add(b, y, bias);
  return y;
}

// Whether `p` is absent or has exactly the static sizes `want`.
bool param_fits(const Value* p, const std::vector<int64_t>& want) {
  if (p == nullptr) return true;
  const auto sizes = static_sizes(p);
  return sizes && *sizes == want;
}

// layer_norm and rms_norm: normalize over the trailing dims normalized_shape names.
Replacement normalize_trailing(Node& n, GraphBuilder& b, bool center, double eps) {
  const std::vector<int64_t>& norm = attrs_of(n).attr_ints("normalized_shape");
  Value* x = n.operand(0).value;
  const Shape& shape = x->type().shape;
  const int k = static_cast<int>(norm.size());
  if (k == 0 || k > shape.rank()) return std::nullopt;
  std::vector<int64_t> dims;
  for (int i = 0; i < k; ++i) {
    if (!(shape[shape.rank() - k + i] == norm[static_cast<size_t>(i)])) return std::nullopt;
    dims.push_back(shape.rank() - k + i);
  }
  Value* w = optional_operand(n, 1);
  Value* bias = center ? optional_operand(n, 2) : nullptr;
  if (!param_fits(w, norm) || !param_fits(bias, norm)) return std::nullopt;
  return result(b, n, affine(b, normalize(b, x, dims, eps, center), w, bias));
}

Replacement layer_norm(Node& n, GraphBuilder& b) {
  return normalize_trailing(n, b, true, attrs_of(n).attr_float("eps"));
}

Replacement rms_norm(Node& n, GraphBuilder& b) {
  const double eps = attrs_of(n).attr_opt_float("eps").value_or(dtype_epsilon(n.operand(0).value->type().dtype));
  return normalize_trailing(n, b, false, eps);
}

// The channel count C of x [N, C, *] when static and x has at least 2 dims.
std::optional<int64_t> channels(const Value* x) {
  const Shape& s = x->type().shape;
  if (s.rank() < 2 || !s[1].is_static()) return std::nullopt;
  return s[1].value();
}

// x [N, C, *] viewed as [N, G, C/G * spatial], normalized over the last dim, viewed back.
Replacement group_norm(Node& n, GraphBuilder& b) {
  const OpCallBase a = attrs_of(n);
  Value* x = n.operand(0).value;
  const auto sizes = static_sizes(x);
  const int64_t groups = a.attr_int("num_groups");
  if (!sizes || sizes->size() < 2 || groups <= 0 || (*sizes)[1] % groups != 0) return std::nullopt;
  const int64_t c = (*sizes)[1];
  Value *w = optional_operand(n, 1), *bias = optional_operand(n, 2);
  if (!param_fits(w, {c}) || !param_fits(bias, {c})) return std::nullopt;
  int64_t per_sample = 1;
  for (size_t i = 1; i < sizes->size(); ++i) per_sample *= (*sizes)[i];
  if (per_sample == 0) return std::nullopt;
  Value* grouped =
      b.apply1(OpKind::Reshape, {x}, {{"shape", AttrValue::Ints{(*sizes)[0], groups, per_sample / groups}}});
  Value* y = b.apply1(OpKind::Reshape, {normalize(b, grouped, {2}, a.attr_float("eps"), true)}, {{"shape", *sizes}});
  const int rank = static_cast<int>(sizes->size());
  return result(b, n, affine(b, y, per_channel(b, w, rank), per_channel(b, bias, rank)));
}

// Training: batch statistics over every dim but 1 (the running-stat operands are not read;
// kiln updates running stats with separate ops and copy_, see nn::BatchNorm2d). Evaluation:
// (x - running_mean) * rsqrt(running_var + eps). Both end with the per-channel affine.
Replacement batch_norm(Node& n, GraphBuilder& b) {
  const OpCallBase a = attrs_of(n);
  Value* x = n.operand(0).value;
  const auto c = channels(x);
  if (!c) return std::nullopt;
  Value *w = optional_operand(n, 1), *bias = optional_operand(n, 2);
  Value *mean = optional_operand(n, 3), *var = optional_operand(n, 4);
  for (Value* p : {w, bias, mean, var})
    if (!param_fits(p, {*c})) return std::nullopt;
  const Shape& shape = x->type().shape;
  const int rank = shape.rank();
  const double eps = a.attr_float("eps");
  Value* y = nullptr;
  if (a.attr_bool("training")) {
    // The kernel rejects a single value per channel; count only when it is static.
    int64_t per_channel_count = 1;
    std::vector<int64_t> dims{0};
    for (int d = 0; d < rank; ++d) {
      if (d != 1) per_channel_count *= shape[d].is_static() ? shape[d].value() : 2;
      if (d >= 2) dims.push_back(d);
    }
    if (per_channel_count <= 1) return std::nullopt;
    y = normalize(b, x, dims, eps, true);
  } else {
    if (mean == nullptr || var == nullptr) return std::nullopt;
    Value* rstd = unary(b, OpKind::Rsqrt, add(b, per_channel(b, var, rank), Scalar(eps)));
    y = mul(b, sub(b, x, per_channel(b, mean, rank)), rstd);
  }
  return result(b, n, affine(b, y, per_channel(b, w, rank), per_channel(b, bias, rank)));
}

}  // namespace

std::vector<RewriteRule> norm_rules() {
  return {
      {"layer_norm", {OpKind::LayerNorm}, layer_norm},
      {"rms_norm", {OpKind::RmsNorm}, rms_norm},
      {"batch_norm", {OpKind::BatchNorm}, batch_norm},
      {"group_norm", {OpKind::GroupNorm}, group_norm},
  };
}

}  // namespace kiln::decomp
