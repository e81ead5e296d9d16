// Derivative rules of the reductions and cumsum. A reduction's gradient is first put in the
// keepdim form (reduced dims back as size 1), where it broadcasts against the input.
#include "autograd/derivative_rules.h"
#include "autograd/rule_util.h"

namespace kiln {

using namespace grad;

namespace {

struct Reduction {
  std::vector<bool> reduced;
  Value* g;  // the result's gradient, keepdim form
  Value* y;  // the result, keepdim form
};

Reduction reduction_of(const GradCall& c) {
  Reduction r;
  r.reduced = reduced_dims_of(c);
  const bool keepdim = c.attr_bool("keepdim");
  r.g = keepdim_form(c.b, c.grad(), r.reduced, keepdim);
  r.y = keepdim_form(c.b, c.result(), r.reduced, keepdim);
  return r;
}

AttrValue::Ints dims_of(const std::vector<bool>& reduced) {
  AttrValue::Ints dims;
  for (size_t d = 0; d < reduced.size(); ++d)
    if (reduced[d]) dims.push_back(static_cast<int64_t>(d));
  return dims;
}

// amax/amin: the gradient split evenly among the elements equal to the extreme.
std::vector<Value*> extreme(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  GraphBuilder& b = c.b;
  Reduction r = reduction_of(c);
  Value* x = c.operand(0);
  Value* hits = b.cast(b.apply1(OpKind::Eq, {x, r.y}), x->type().dtype);
  Value* count = b.apply1(OpKind::Sum, {hits}, {{"dim", dims_of(r.reduced)}, {"keepdim", true}});
  return {to_operand(c, 0, mul(b, hits, div(b, r.g, count)))};
}

// x - mean(x) over the reduced dims, and the divisor N - correction.
struct Centered {
  Value* d;
  Operand divisor;
};

Centered centered(const GradCall& c, const Reduction& r) {
  GraphBuilder& b = c.b;
  Value* x = c.operand(0);
  Value* mean = b.apply1(OpKind::Mean, {x}, {{"dim", dims_of(r.reduced)}, {"keepdim", true}});
  const Scalar corr = c.attr_scalar("correction");
  const double correction = corr.is_none() ? 1.0 : corr.to_double();
  Operand n = reduced_count(b, x, r.reduced);
  Operand divisor =
      n.is_value() ? Operand(sub(b, n.value, Scalar(correction))) : Operand(Scalar(n.literal.to_double() - correction));
  return {sub(b, x, mean), divisor};
}

}  // namespace

std::vector<Value*> grad_rule_sum(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  Reduction r = reduction_of(c);
  return {to_operand(c, 0, expand_like(c.b, r.g, c.operand(0)))};
}

std::vector<Value*> grad_rule_mean(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  Reduction r = reduction_of(c);
  Value* x = c.operand(0);
  Value* g = div(c.b, r.g, reduced_count(c.b, x, r.reduced));
  return {to_operand(c, 0, expand_like(c.b, g, x))};
}

// g times the product of the other elements reduced with x, as PyTorch: prod / x where the
// reduction holds no zero; where it holds one, the product of the rest at the zero and 0
// elsewhere; where it holds more, 0.
std::vector<Value*> grad_rule_prod(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  GraphBuilder& b = c.b;
  Reduction r = reduction_of(c);
  Value* x = c.operand(0);
  Value* is_zero = b.apply1(OpKind::Eq, {x, Scalar(0.0)});
  Value* zeros =
      b.apply1(OpKind::Sum, {b.cast(is_zero, x->type().dtype)}, {{"dim", dims_of(r.reduced)}, {"keepdim", true}});
  Value* nonzero_prod = b.apply1(OpKind::Prod, {where(b, is_zero, Scalar(1.0), x)}, c.node.attrs());
  Value* rest = where(b, is_zero, keepdim_form(b, nonzero_prod, r.reduced, c.attr_bool("keepdim")), Scalar(0.0));
  Value* one_zero = b.apply1(OpKind::Eq, {zeros, Scalar(1.0)});
  Value* others =
      where(b, b.apply1(OpKind::Eq, {zeros, Scalar(0.0)}), div(b, r.y, x), where(b, one_zero, rest, Scalar(0.0)));
  return {to_operand(c, 0, mul(b, r.g, others))};
}

std::vector<Value*> grad_rule_amax(const GradCall& c) { return extreme(c); }

std::vector<Value*> grad_rule_amin(const GradCall& c) { return extreme(c); }

// 2 (x - mean) / (N - correction).
std::vector<Value*> grad_rule_var(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  GraphBuilder& b = c.b;
  Reduction r = reduction_of(c);
  Centered k = centered(c, r);
  return {to_operand(c, 0, mul(b, r.g, div(b, mul(b, k.d, Scalar(2.0)), k.divisor)))};
}

// (x - mean) / ((N - correction) std), and 0 where std is 0 (a constant row), as PyTorch.
std::vector<Value*> grad_rule_std(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  GraphBuilder& b = c.b;
  Reduction r = reduction_of(c);
  Centered k = centered(c, r);
  return {to_operand(c, 0, mul(b, div_or_zero(b, r.g, r.y), div(b, k.d, k.divisor)))};
}

std::vector<Value*> grad_rule_logsumexp(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  GraphBuilder& b = c.b;
  Reduction r = reduction_of(c);
  Value* softmax = unary(b, OpKind::Exp, sub(b, c.operand(0), r.y));
  return {to_operand(c, 0, mul(b, r.g, softmax))};
}

// The reversed cumulative sum of the gradient.
std::vector<Value*> grad_rule_cumsum(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  GraphBuilder& b = c.b;
  const int64_t dim = c.attr_int("dim");
  const AttrMap flip{{"dims", AttrValue::Ints{dim}}};
  Value* rev = b.apply1(OpKind::Flip, {c.grad()}, flip);
  Value* acc = b.apply1(OpKind::Cumsum, {rev}, {{"dim", dim}});
  return {to_operand(c, 0, b.apply1(OpKind::Flip, {acc}, flip))};
}

// y (g - sum(g y)) over the softmax dim.
std::vector<Value*> grad_rule_softmax(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  GraphBuilder& b = c.b;
  Value *g = c.grad(), *y = c.result();
  const AttrMap over{{"dim", AttrValue::Ints{c.attr_int("dim")}}, {"keepdim", true}};
  Value* gy_sum = b.apply1(OpKind::Sum, {mul(b, g, y)}, over);
  return {to_operand(c, 0, mul(b, y, sub(b, g, gy_sum)))};
}

// g - exp(y) sum(g) over the softmax dim.
std::vector<Value*> grad_rule_log_softmax(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  GraphBuilder& b = c.b;
  Value* g = c.grad();
  const AttrMap over{{"dim", AttrValue::Ints{c.attr_int("dim")}}, {"keepdim", true}};
  Value* g_sum = b.apply1(OpKind::Sum, {g}, over);
  return {to_operand(c, 0, sub(b, g, mul(b, unary(b, OpKind::Exp, c.result()), g_sum)))};
}

}  // namespace kiln
