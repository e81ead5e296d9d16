// Derivative rules of the view ops: each gradient is the inverse view of the result's gradient
// (reshape back, inverse permutation, sum over expanded dims, ...).
#include "autograd/derivative_rules.h"
#include "autograd/rule_util.h"
#include "support/check.h"

namespace kiln {

using namespace grad;

namespace {

// The gradient reshaped to operand 0's static sizes.
std::vector<Value*> reshape_back(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  const Shape& shape = c.operand(0)->type().shape;
  KILN_CHECK(shape.is_static()) << "derivative of " << c.name() << ": symbolic input shape " << shape.to_string();
  Value* g = c.b.apply1(OpKind::Reshape, {c.grad()}, {{"shape", shape.sizes()}});
  return {to_operand(c, 0, g)};
}

}  // namespace

std::vector<Value*> grad_rule_reshape(const GradCall& c) { return reshape_back(c); }
std::vector<Value*> grad_rule_view(const GradCall& c) { return reshape_back(c); }
std::vector<Value*> grad_rule_squeeze(const GradCall& c) { return reshape_back(c); }
std::vector<Value*> grad_rule_unsqueeze(const GradCall& c) { return reshape_back(c); }
std::vector<Value*> grad_rule_flatten(const GradCall& c) { return reshape_back(c); }

std::vector<Value*> grad_rule_permute(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  const AttrValue::Ints& dims = c.attr_ints("dims");
  const int rank = static_cast<int>(dims.size());
  AttrValue::Ints inverse(dims.size());
  for (int i = 0; i < rank; ++i) inverse[static_cast<size_t>(*wrap_dim(dims[static_cast<size_t>(i)], rank))] = i;
  return {to_operand(c, 0, c.b.apply1(OpKind::Permute, {c.grad()}, {{"dims", inverse}}))};
}

std::vector<Value*> grad_rule_transpose(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  Value* g = c.b.apply1(OpKind::Transpose, {c.grad()}, {{"dim0", c.attr_int("dim0")}, {"dim1", c.attr_int("dim1")}});
  return {to_operand(c, 0, g)};
}

std::vector<Value*> grad_rule_t(const GradCall& c) {
  if (!differentiable(c, 0)) return {nullptr};
  return {to_operand(c, 0, c.b.apply1(OpKind::T, {c.grad()}))};
}

// to_operand sums over the dims expand stretched or added.
std::vector<Value*> grad_rule_expand(const GradCall& c) { return {to_operand(c, 0, c.grad())}; }

}  // namespace kiln
