// Decompositions of the elementwise activations into arithmetic, exp/log/erf/tanh, where and
// clamp, written with the constants and operation order of the kernels (kernels_unary.cc).
#include <cmath>
#include <numbers>

#include "passes/decompositions.h"

namespace kiln::decomp {

namespace {

// none: 0.5 x (1 + erf(x / sqrt 2)); tanh: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// Any other `approximate` is declined: the kernel rejects it.
Replacement gelu(Node& n, GraphBuilder& b) {
  const std::string& approximate = attrs_of(n).attr_str("approximate");
  if (approximate != "none" && approximate != "tanh") return std::nullopt;
  Value* x = n.operand(0).value;
  Value* inner = nullptr;
  if (approximate == "none") {
    inner = unary(b, OpKind::Erf, mul(b, x, Scalar(std::numbers::sqrt2 / 2)));
  } else {
    Value* cube = mul(b, mul(b, x, x), x);
    Value* poly = add(b, x, mul(b, cube, Scalar(0.044715)));
    inner = unary(b, OpKind::Tanh, mul(b, poly, Scalar(std::sqrt(2.0 / std::numbers::pi))));
  }
  return result(b, n, mul(b, mul(b, x, Scalar(0.5)), add(b, inner, Scalar(1.0))));
}

// x / (1 + exp(-x))
Replacement silu(Node& n, GraphBuilder& b) {
  Value* x = n.operand(0).value;
  return result(b, n, div(b, x, add(b, unary(b, OpKind::Exp, unary(b, OpKind::Neg, x)), Scalar(1.0))));
}

// x beta > threshold ? x : log1p(exp(x beta)) / beta
Replacement softplus(Node& n, GraphBuilder& b) {
  const OpCallBase a = attrs_of(n);
  const Scalar beta(a.attr_scalar("beta").to_double()), threshold(a.attr_scalar("threshold").to_double());
  Value* x = n.operand(0).value;
  Value* scaled = mul(b, x, beta);
  Value* soft = div(b, unary(b, OpKind::Log1p, unary(b, OpKind::Exp, scaled)), beta);
  return result(b, n, where(b, b.apply1(OpKind::Gt, {scaled, threshold}), x, soft));
}

// x <= 0 ? expm1(x input_scale) alpha scale : x scale
Replacement elu(Node& n, GraphBuilder& b) {
  const OpCallBase a = attrs_of(n);
  const Scalar alpha(a.attr_scalar("alpha").to_double()), scale(a.attr_scalar("scale").to_double()),
      input_scale(a.attr_scalar("input_scale").to_double());
  Value* x = n.operand(0).value;
  Value* negative = mul(b, mul(b, unary(b, OpKind::Expm1, mul(b, x, input_scale)), alpha), scale);
  return result(b, n, where(b, b.apply1(OpKind::Le, {x, Scalar(0.0)}), negative, mul(b, x, scale)));
}

// x > 0 ? x : x negative_slope
Replacement leaky_relu(Node& n, GraphBuilder& b) {
  const Scalar slope(attrs_of(n).attr_scalar("negative_slope").to_double());
  Value* x = n.operand(0).value;
  return result(b, n, where(b, b.apply1(OpKind::Gt, {x, Scalar(0.0)}), x, mul(b, x, slope)));
}

// clamp(x, min_val, max_val). Declined when min_val > max_val: hardtanh then gives min_val
// where x < min_val, clamp gives max_val.
Replacement hardtanh(Node& n, GraphBuilder& b) {
  const OpCallBase a = attrs_of(n);
  Value* x = n.operand(0).value;
  const Scalar lo = a.attr_scalar("min_val"), hi = a.attr_scalar("max_val");
  if (lo.to_double() > hi.to_double()) return std::nullopt;
  // Integer inputs clamp to the bounds truncated, as the kernel's integer path does.
  const bool integral = !is_floating(x->type().dtype);
  const Scalar lo_s = integral ? Scalar(lo.to_int()) : Scalar(lo.to_double());
  const Scalar hi_s = integral ? Scalar(hi.to_int()) : Scalar(hi.to_double());
  return result(
      b, n,
      b.apply1(OpKind::Clamp, {x}, {{"min", AttrValue::from_scalar(lo_s)}, {"max", AttrValue::from_scalar(hi_s)}}));
}

}  // namespace

std::vector<RewriteRule> activation_rules() {
  return {
      {"gelu", {OpKind::Gelu}, gelu},
      {"silu", {OpKind::Silu}, silu},
      {"softplus", {OpKind::Softplus}, softplus},
      {"elu", {OpKind::Elu}, elu},
      {"leaky_relu", {OpKind::LeakyRelu}, leaky_relu},
      {"hardtanh", {OpKind::Hardtanh}, hardtanh},
  };
}

}  // namespace kiln::decomp
