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

}  // namespace kiln::grad
