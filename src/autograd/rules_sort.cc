// Derivative rules of topk and sort: each value is an element of self, so its gradient goes
// back to that element through the indices (distinct within a line); the indices get none.
#include "autograd/derivative_rules.h"
#include "autograd/rule_util.h"

namespace kiln {

using namespace grad;

namespace {

std::vector<Value*> values_to_self(const GradCall& c) {
  if (!differentiable(c, 0) || c.grad(0) == nullptr) return {nullptr};
  Value* self = c.operand(0);
  // A 0-d self is its own single value (index 0).
  if (self->type().shape.rank() == 0) return {to_operand(c, 0, c.grad(0))};
  Value* g =
      c.b.apply1(OpKind::ScatterAdd, {c.b.zeros_like(self), c.result(1), c.grad(0)}, {{"dim", c.attr_int("dim")}});
  return {to_operand(c, 0, g)};
}

}  // namespace

std::vector<Value*> grad_rule_topk(const GradCall& c) { return values_to_self(c); }
std::vector<Value*> grad_rule_sort(const GradCall& c) { return values_to_self(c); }

}  // namespace kiln
