// Derivative rules of the elementwise unary ops and the copies: each is the result's gradient
// times the op's derivative, written with the op's result where that is cheaper.
#include <cmath>

#include "autograd/derivative_rules.h"
#include "autograd/rule_util.h"

namespace kiln {

using namespace grad;

namespace {

// The gradient of operand 0 as g * d, where `d` builds the derivative from x and the result.
template <typename F>
std::vector<Value*> chain(const GradCall& c, F d) {
  if (!differentiable(c, 0)) return {nullptr};
  return {to_operand(c, 0, mul(c.b, c.grad(), d(c.b, c.operand(0), c.result())))};
}

// g where `mask` holds, else 0.
std::vector<Value*> masked(const GradCall& c, Value* mask) {
  if (!differentiable(c, 0)) return {nullptr};
  return {to_operand(c, 0, where(c.b, mask, c.grad(), Scalar(0.0)))};
}

constexpr double kSqrtPi = 1.7724538509055160273;
constexpr double kSqrt2 = 1.4142135623730950488;

}  // namespace

std::vector<Value*> grad_rule_neg(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  return {to_operand(c, 0, neg(c.b, c.grad()))};
}

std::vector<Value*> grad_rule_abs(const GradCall& c) {
  return chain(c, [](GraphBuilder& b, Value* x, Value*) { return unary(b, OpKind::Sign, x); });
}

std::vector<Value*> grad_rule_exp(const GradCall& c) {
  return chain(c, [](GraphBuilder&, Value*, Value* y) { return y; });
}

std::vector<Value*> grad_rule_log(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  return {to_operand(c, 0, div(c.b, c.grad(), c.operand(0)))};
}

std::vector<Value*> grad_rule_log1p(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  return {to_operand(c, 0, div(c.b, c.grad(), add(c.b, c.operand(0), Scalar(1.0))))};
}

std::vector<Value*> grad_rule_expm1(const GradCall& c) {
  return chain(c, [](GraphBuilder& b, Value*, Value* y) { return add(b, y, Scalar(1.0)); });
}

std::vector<Value*> grad_rule_sqrt(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  return {to_operand(c, 0, div(c.b, c.grad(), mul(c.b, c.result(), Scalar(2.0))))};
}

// d/dx x^(-1/2) = -y^3 / 2.
std::vector<Value*> grad_rule_rsqrt(const GradCall& c) {
  return chain(c, [](GraphBuilder& b, Value*, Value* y) {
    return mul(b, b.apply1(OpKind::Pow, {y, Scalar(3.0)}), Scalar(-0.5));
  });
}

std::vector<Value*> grad_rule_reciprocal(const GradCall& c) {
  return chain(c, [](GraphBuilder& b, Value*, Value* y) { return neg(b, mul(b, y, y)); });
}

std::vector<Value*> grad_rule_sin(const GradCall& c) {
  return chain(c, [](GraphBuilder& b, Value* x, Value*) { return unary(b, OpKind::Cos, x); });
}

std::vector<Value*> grad_rule_cos(const GradCall& c) {
  return chain(c, [](GraphBuilder& b, Value* x, Value*) { return neg(b, unary(b, OpKind::Sin, x)); });
}

std::vector<Value*> grad_rule_tan(const GradCall& c) {
  return chain(c, [](GraphBuilder& b, Value*, Value* y) { return add(b, mul(b, y, y), Scalar(1.0)); });
}

std::vector<Value*> grad_rule_atan(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  Value* x = c.operand(0);
  return {to_operand(c, 0, div(c.b, c.grad(), add(c.b, mul(c.b, x, x), Scalar(1.0))))};
}

std::vector<Value*> grad_rule_tanh(const GradCall& c) {
  return chain(c, [](GraphBuilder& b, Value*, Value* y) { return one_minus(b, mul(b, y, y)); });
}

std::vector<Value*> grad_rule_sigmoid(const GradCall& c) {
  return chain(c, [](GraphBuilder& b, Value*, Value* y) { return mul(b, y, one_minus(b, y)); });
}

std::vector<Value*> grad_rule_relu(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  // PyTorch's threshold_backward zeroes where x <= 0, so a NaN passes the gradient.
  return masked(c, c.b.apply1(OpKind::LogicalNot, {c.b.apply1(OpKind::Le, {c.operand(0), Scalar(0.0)})}));
}

// none: Phi(x) + x phi(x). tanh: with u = k (x + 0.044715 x^3) and t = tanh(u),
// 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 * 0.044715 x^2).
std::vector<Value*> grad_rule_gelu(const GradCall& c) {
  const bool tanh_approx = c.attr_str("approximate") == "tanh";
  return chain(c, [tanh_approx](GraphBuilder& b, Value* x, Value*) {
    Value* x2 = mul(b, x, x);
    if (tanh_approx) {
      const double k = kSqrt2 / kSqrtPi, a = 0.044715;
      Value* u = mul(b, mul(b, x, add(b, mul(b, x2, Scalar(a)), Scalar(1.0))), Scalar(k));
      Value* t = unary(b, OpKind::Tanh, u);
      Value* left = mul(b, add(b, t, Scalar(1.0)), Scalar(0.5));
      Value* du = mul(b, add(b, mul(b, x2, Scalar(3.0 * a)), Scalar(1.0)), Scalar(k));
      Value* right = mul(b, mul(b, mul(b, x, one_minus(b, mul(b, t, t))), du), Scalar(0.5));
      return add(b, left, right);
    }
    Value* cdf = mul(b, add(b, unary(b, OpKind::Erf, mul(b, x, Scalar(1.0 / kSqrt2))), Scalar(1.0)), Scalar(0.5));
    Value* pdf = mul(b, unary(b, OpKind::Exp, mul(b, x2, Scalar(-0.5))), Scalar(1.0 / (kSqrt2 * kSqrtPi)));
    return add(b, cdf, mul(b, x, pdf));
  });
}

// s (1 + x (1 - s)) with s = sigmoid(x).
std::vector<Value*> grad_rule_silu(const GradCall& c) {
  return chain(c, [](GraphBuilder& b, Value* x, Value*) {
    Value* s = unary(b, OpKind::Sigmoid, x);
    return mul(b, s, add(b, mul(b, x, one_minus(b, s)), Scalar(1.0)));
  });
}

std::vector<Value*> grad_rule_erf(const GradCall& c) {
  return chain(c, [](GraphBuilder& b, Value* x, Value*) {
    return mul(b, unary(b, OpKind::Exp, neg(b, mul(b, x, x))), Scalar(2.0 / kSqrtPi));
  });
}

std::vector<Value*> grad_rule_leaky_relu(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  GraphBuilder& b = c.b;
  Value* pos = b.apply1(OpKind::Gt, {c.operand(0), Scalar(0.0)});
  Value* g = c.grad();
  return {to_operand(c, 0, where(b, pos, g, mul(b, g, c.attr_scalar("negative_slope"))))};
}

// Linear above the threshold (as the kernel), else sigmoid(beta x).
std::vector<Value*> grad_rule_softplus(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  GraphBuilder& b = c.b;
  Value* bx = mul(b, c.operand(0), c.attr_scalar("beta"));
  Value* linear = b.apply1(OpKind::Gt, {bx, c.attr_scalar("threshold")});
  Value* g = c.grad();
  return {to_operand(c, 0, where(b, linear, g, mul(b, g, unary(b, OpKind::Sigmoid, bx))))};
}

// x > 0: scale; else scale * alpha * input_scale * exp(x * input_scale).
std::vector<Value*> grad_rule_elu(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  GraphBuilder& b = c.b;
  const double alpha = c.attr_scalar("alpha").to_double(), scale = c.attr_scalar("scale").to_double(),
               input_scale = c.attr_scalar("input_scale").to_double();
  Value* x = c.operand(0);
  Value* neg_slope = mul(b, unary(b, OpKind::Exp, mul(b, x, Scalar(input_scale))), Scalar(scale * alpha * input_scale));
  // The positive branch is taken only where x > 0, so a NaN input takes the exponential one and
  // its gradient is NaN. PyTorch's vectorized kernels disagree with each other here (its AVX2
  // kernel returns the incoming gradient at NaN, its AVX-512 kernel NaN); kiln picks NaN.
  Value* d = where(b, b.apply1(OpKind::Gt, {x, Scalar(0.0)}), Scalar(scale), neg_slope);
  return {to_operand(c, 0, mul(b, c.grad(), d))};
}

// Zero where the input is at or beyond a bound, as PyTorch.
std::vector<Value*> grad_rule_hardtanh(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  GraphBuilder& b = c.b;
  Value* x = c.operand(0);
  Value* above = b.apply1(OpKind::Gt, {x, c.attr_scalar("min_val")});
  Value* below = b.apply1(OpKind::Lt, {x, c.attr_scalar("max_val")});
  return masked(c, b.apply1(OpKind::LogicalAnd, {above, below}));
}

std::vector<Value*> grad_rule_clone(const GradCall& c) { return {to_operand(c, 0, c.grad())}; }

std::vector<Value*> grad_rule_contiguous(const GradCall& c) { return {to_operand(c, 0, c.grad())}; }

// The gradient goes back to the operand's dtype (to_operand casts).
std::vector<Value*> grad_rule__to_copy(const GradCall& c) { return {to_operand(c, 0, c.grad())}; }

}  // namespace kiln
