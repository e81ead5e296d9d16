// Derivative rules of the broadcasting elementwise ops with two or three operands. Each
// gradient is built at the result's shape and dtype, then summed over the dims broadcasting
// stretched and cast back to its operand (to_operand); literal operands get none.
#include <cmath>

#include "autograd/derivative_rules.h"
#include "autograd/rule_util.h"

namespace kiln {

using namespace grad;

namespace {

bool is_one(const Scalar& s) { return s.to_double() == 1.0; }

// g * s, without a node when s is 1.
Value* scaled(GraphBuilder& b, Value* g, const Scalar& s) { return is_one(s) ? g : mul(b, g, s); }

// maximum/minimum, as PyTorch: half the gradient on ties, none to the operand that loses,
// the whole gradient otherwise (so both operands get it where a NaN makes every comparison
// false). `loses_self` is the comparison under which self loses (lt for maximum).
std::vector<Value*> max_min(const GradCall& c, OpKind loses_self, OpKind loses_other) {
  GraphBuilder& b = c.b;
  Value *x = c.operand(0), *y = c.operand(1), *g = c.grad();
  Value* shared = where(b, b.apply1(OpKind::Eq, {x, y}), mul(b, g, Scalar(0.5)), g);
  Value* gx = differentiable(c, 0) ? where(b, b.apply1(loses_self, {x, y}), Scalar(0.0), shared) : nullptr;
  Value* gy = differentiable(c, 1) ? where(b, b.apply1(loses_other, {x, y}), Scalar(0.0), shared) : nullptr;
  return {to_operand(c, 0, gx), to_operand(c, 1, gy)};
}

}  // namespace

std::vector<Value*> grad_rule_add(const GradCall& c) {
  Value* g = c.grad();
  Value* gy = differentiable(c, 1) ? scaled(c.b, g, c.attr_scalar("alpha")) : nullptr;
  return {to_operand(c, 0, g), to_operand(c, 1, gy)};
}

std::vector<Value*> grad_rule_sub(const GradCall& c) {
  Value* g = c.grad();
  Value* gy = differentiable(c, 1) ? neg(c.b, scaled(c.b, g, c.attr_scalar("alpha"))) : nullptr;
  return {to_operand(c, 0, g), to_operand(c, 1, gy)};
}

std::vector<Value*> grad_rule_mul(const GradCall& c) {
  GraphBuilder& b = c.b;
  Value* g = c.grad();
  Value* gx = differentiable(c, 0) ? mul(b, g, c.operand_as_written(1)) : nullptr;
  Value* gy = differentiable(c, 1) ? mul(b, g, c.operand_as_written(0)) : nullptr;
  return {to_operand(c, 0, gx), to_operand(c, 1, gy)};
}

// True division only: with a rounding mode the result is piecewise constant.
std::vector<Value*> grad_rule_div(const GradCall& c) {
  if (c.attr_opt_str("rounding_mode")) return {nullptr, nullptr};
  GraphBuilder& b = c.b;
  Value* g = c.grad();
  Value* gx = differentiable(c, 0) ? div(b, g, c.operand_as_written(1)) : nullptr;
  Value* gy = differentiable(c, 1) ? neg(b, div(b, mul(b, g, c.result()), c.operand(1))) : nullptr;
  return {to_operand(c, 0, gx), to_operand(c, 1, gy)};
}

// d/dx x^e = e x^(e-1), taken as 0 where e == 0 (so 0^0 has none); d/de x^e = x^e log x,
// taken as 0 where x == 0 and e >= 0. Both as PyTorch, for literal operands too.
std::vector<Value*> grad_rule_pow(const GradCall& c) {
  GraphBuilder& b = c.b;
  Value* g = c.grad();
  const Operand x = c.operand_as_written(0), e = c.operand_as_written(1);
  Value* gx = nullptr;
  if (differentiable(c, 0)) {
    if (!e.is_value() && e.literal.to_double() == 0.0) {
      gx = b.zeros_like(g);
    } else {
      Operand e_minus_1 =
          e.is_value() ? Operand(sub(b, e.value, Scalar(1.0))) : Operand(Scalar(e.literal.to_double() - 1.0));
      gx = mul(b, mul(b, g, e), b.apply1(OpKind::Pow, {x, e_minus_1}));
      if (e.is_value()) gx = zero_where(b, b.apply1(OpKind::Eq, {e.value, Scalar(0.0)}), gx);
    }
  }
  Value* gy = nullptr;
  if (differentiable(c, 1)) {
    Value* g_result = mul(b, g, c.result());
    Value* exponent_nonnegative = b.apply1(OpKind::Ge, {e.value, Scalar(0.0)});
    if (x.is_value()) {
      Value* zero_base =
          b.apply1(OpKind::LogicalAnd, {b.apply1(OpKind::Eq, {x.value, Scalar(0.0)}), exponent_nonnegative});
      gy = zero_where(b, zero_base, mul(b, g_result, unary(b, OpKind::Log, x.value)));
    } else {
      const double base = x.literal.to_double();
      gy = mul(b, g_result, Scalar(std::log(base)));
      if (base == 0.0) gy = zero_where(b, exponent_nonnegative, gy);
    }
  }
  return {to_operand(c, 0, gx), to_operand(c, 1, gy)};
}

std::vector<Value*> grad_rule_maximum(const GradCall& c) { return max_min(c, OpKind::Lt, OpKind::Gt); }

std::vector<Value*> grad_rule_minimum(const GradCall& c) { return max_min(c, OpKind::Gt, OpKind::Lt); }

// atan2(y, x): dy = x / (x^2 + y^2), dx = -y / (x^2 + y^2); 0 where x^2 + y^2 is 0 (the
// origin, or squares below the smallest subnormal), as PyTorch.
std::vector<Value*> grad_rule_atan2(const GradCall& c) {
  GraphBuilder& b = c.b;
  Value *y = c.operand(0), *x = c.operand(1);
  Value* g_over = div_or_zero(b, c.grad(), add(b, mul(b, x, x), mul(b, y, y)));
  Value* gy = differentiable(c, 0) ? mul(b, g_over, x) : nullptr;
  Value* gx = differentiable(c, 1) ? neg(b, mul(b, g_over, y)) : nullptr;
  return {to_operand(c, 0, gy), to_operand(c, 1, gx)};
}

std::vector<Value*> grad_rule_where(const GradCall& c) {
  GraphBuilder& b = c.b;
  Value *cond = c.operand(0), *g = c.grad();
  Value* gx = differentiable(c, 1) ? where(b, cond, g, Scalar(0.0)) : nullptr;
  Value* gy = differentiable(c, 2) ? where(b, cond, Scalar(0.0), g) : nullptr;
  return {nullptr, to_operand(c, 1, gx), to_operand(c, 2, gy)};
}

// Passes the gradient where min <= x <= max (PyTorch's mask).
std::vector<Value*> grad_rule_clamp(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  GraphBuilder& b = c.b;
  Value *x = c.operand(0), *g = c.grad();
  const Scalar lo = c.attr_scalar("min"), hi = c.attr_scalar("max");
  // Strictly inside the bounds, as PyTorch: no gradient at a bound or at NaN.
  if (!lo.is_none()) g = where(b, b.apply1(OpKind::Gt, {x, lo}), g, Scalar(0.0));
  if (!hi.is_none()) g = where(b, b.apply1(OpKind::Lt, {x, hi}), g, Scalar(0.0));
  return {to_operand(c, 0, g)};
}

// self + w (end - self), in the result's dtype: any operand may be bool (torch takes a bool
// weight, and bool ends beside a float weight), which neg and sub refuse.
std::vector<Value*> grad_rule_lerp(const GradCall& c) {
  GraphBuilder& b = c.b;
  const DType dt = c.grad()->type().dtype;
  Value* g = c.grad();
  Operand w = c.operand_as_written(2);
  if (w.is_value()) w = Operand(b.cast(w.value, dt));
  Value* gx = differentiable(c, 0) ? mul(b, g, one_minus(b, w)) : nullptr;
  Value* gend = differentiable(c, 1) ? mul(b, g, w) : nullptr;
  Value* gw = differentiable(c, 2) ? mul(b, g, sub(b, b.cast(c.operand(1), dt), b.cast(c.operand(0), dt))) : nullptr;
  return {to_operand(c, 0, gx), to_operand(c, 1, gend), to_operand(c, 2, gw)};
}

// self + value * t1 * t2.
std::vector<Value*> grad_rule_addcmul(const GradCall& c) {
  GraphBuilder& b = c.b;
  Value* gv = scaled(b, c.grad(), c.attr_scalar("value"));
  Value* g1 = differentiable(c, 1) ? mul(b, gv, c.operand(2)) : nullptr;
  Value* g2 = differentiable(c, 2) ? mul(b, gv, c.operand(1)) : nullptr;
  return {to_operand(c, 0, c.grad()), to_operand(c, 1, g1), to_operand(c, 2, g2)};
}

// self + value * t1 / t2.
std::vector<Value*> grad_rule_addcdiv(const GradCall& c) {
  GraphBuilder& b = c.b;
  Value* t2 = c.operand(2);
  Value* gv_over = div(b, scaled(b, c.grad(), c.attr_scalar("value")), t2);
  Value* g1 = differentiable(c, 1) ? gv_over : nullptr;
  Value* g2 = differentiable(c, 2) ? neg(b, div(b, mul(b, gv_over, c.operand(1)), t2)) : nullptr;
  return {to_operand(c, 0, c.grad()), to_operand(c, 1, g1), to_operand(c, 2, g2)};
}

}  // namespace kiln
