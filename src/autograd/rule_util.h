// Helpers shared by the derivative rule files (rules_*.cc): arithmetic shorthands over a
// GraphBuilder, and the steps most rules end with (undo broadcasting, cast back to the
// operand's dtype, expand a reduction's gradient back to its input).
#pragma once

#include <vector>

#include "autograd/derivative.h"

namespace kiln::grad {

// Binary and unary ops as one call each; operands may be values or inline literals.
Value* add(GraphBuilder& b, Operand x, Operand y);
Value* sub(GraphBuilder& b, Operand x, Operand y);
Value* mul(GraphBuilder& b, Operand x, Operand y);
Value* div(GraphBuilder& b, Operand x, Operand y);
Value* neg(GraphBuilder& b, Value* x);
Value* where(GraphBuilder& b, Value* cond, Operand x, Operand y);
Value* unary(GraphBuilder& b, OpKind op, Value* x);
// 1 - x (sub takes no literal on the left); a literal for a literal x.
Operand one_minus(GraphBuilder& b, Operand x);

// Where a rule's formula meets 0/0 or 0 * inf at a point PyTorch gives a gradient of 0 (std
// at a constant row, atan2 at the origin, pow at a zero exponent), the rule masks it:
// `g` with 0 where the bool `cond` holds, and g / d with 0 where d is 0.
Value* zero_where(GraphBuilder& b, Value* cond, Value* g);
Value* div_or_zero(GraphBuilder& b, Value* g, Value* d);

// Whether a gradient can flow to operand `i`: it is a value of a floating dtype.
bool differentiable(const GradCall& call, int i);

// `g` (a gradient of the result's shape) summed over the dims broadcasting stretched and cast
// to operand `i`'s dtype; null when operand `i` is not differentiable.
Value* to_operand(const GradCall& call, int i, Value* g);

// For reductions: which dims of operand 0 the node reduced (one flag per dim).
std::vector<bool> reduced_dims_of(const GradCall& call);
// `g` (the result's gradient, or any value shaped like the result) with the reduced dims put
// back as size 1, i.e. shaped as the keepdim result.
Value* keepdim_form(GraphBuilder& b, Value* g, const std::vector<bool>& reduced, bool keepdim);
// `g` broadcast to the shape of `like`.
Value* expand_like(GraphBuilder& b, Value* g, Value* like);
// The number of elements each result element reduces (a literal when the shape is static, else
// a tensor of the keepdim form).
Operand reduced_count(GraphBuilder& b, Value* x, const std::vector<bool>& reduced);

// `v` with its dims but the last `kept` flattened into one leading dim (of size 1 when there
// are none): the rows of a matrix product. Unlike reshape to [-1, ...], it is unambiguous
// when a kept dim is 0, and symbolic leading dims stay exact.
Value* leading_flattened(GraphBuilder& b, Value* v, int kept);

// For rules written as a decomposition: the forward is rebuilt from ops that have rules,
// recording each node, and `backward` runs those ops' own rules over the recorded nodes in
// reverse. Nodes built with `b` directly (masks, counts) are constants: no gradient flows
// through them. An op of the recorded forward that is pending is an internal error when a
// gradient reaches it.
class Tape {
 public:
  explicit Tape(GraphBuilder& b) : b_(b) {}
  Value* op(OpKind k, std::vector<Operand> operands, AttrMap attrs = {});
  Value* add(Operand x, Operand y) { return op(OpKind::Add, {x, y}); }
  Value* sub(Operand x, Operand y) { return op(OpKind::Sub, {x, y}); }
  Value* mul(Operand x, Operand y) { return op(OpKind::Mul, {x, y}); }
  Value* div(Operand x, Operand y) { return op(OpKind::Div, {x, y}); }
  // The gradients of `wrt` (null entries stay null) given the gradient `g` of `out`; a value
  // that `wrt` repeats gets its gradient in its first slot only.
  std::vector<Value*> backward(Value* out, Value* g, const std::vector<Value*>& wrt);

 private:
  GraphBuilder& b_;
  std::vector<Node*> nodes_;
};

// For higher-order ops: the gradient of each floating result (zeros_like where none flows), in
// result order; other results are left out, as a body's joint graph has no tangent for them.
std::vector<Value*> result_tangents(const GradCall& call);

// Entry `i` of a 2-D window attribute (kernel_size, stride, padding, dilation) given as one or
// two values; `otherwise` when it is empty.
int64_t pair_at(const std::vector<int64_t>& v, size_t i, int64_t otherwise);

}  // namespace kiln::grad
