// Derivative rules: for each op, how to build the vector-Jacobian product of one node as
// graph nodes (so the backward is itself a graph every later pass can optimize). Every op of
// ops.def appears exactly once in derivatives.def, as one of
//   KILN_GRAD(Enum, rule)      differentiable; `rule` builds the operands' gradients
//   KILN_NONDIFF(Enum)         no gradient flows through it (integer/bool results,
//                              comparisons, argmax, creation and random draws, ...)
//   KILN_GRAD_PENDING(Enum)    differentiable, but its rule is not written yet (issue 3):
//                              differentiating through it is an error that says so
//   KILN_GRAD_UNSUPPORTED(Enum, why)
//                              reverse mode through it is out of kiln's reach by design
//                              (`why` says so and what to use instead): an error too
// Higher-order ops' rules differentiate their bodies with joint_graph (rules_higher_order.cc).
#pragma once

#include <span>
#include <vector>

#include "ir/graph_builder.h"
#include "ops/op_call.h"

namespace kiln {

// What a rule sees: the forward node (its operands and results are values of the graph the
// builder appends to), the gradient of each result (null where no gradient flows: treat as
// zero), and the builder. Attributes come with schema defaults through OpCallBase.
struct GradCall : OpCallBase {
  GradCall(const Node& node, std::span<Value* const> grads, GraphBuilder& b)
      : OpCallBase(node.op(), node.attrs()), node(node), grads(grads), b(b) {}

  // Null for literals, none, and trailing optional operands the node leaves out.
  Value* operand(int i) const { return i < node.num_operands() ? node.operand(i).value : nullptr; }
  const Scalar& literal(int i) const { return node.operand(i).literal; }
  // Operand i as it can be passed to a new node: the value, or the literal (none included).
  const Operand& operand_as_written(int i) const { return node.operand(i); }
  Value* result(int i = 0) const { return node.result(i); }
  Value* grad(int i = 0) const { return grads[static_cast<size_t>(i)]; }

  const Node& node;
  std::span<Value* const> grads;
  GraphBuilder& b;
};

// One entry per operand of the node: its gradient (same type as the operand), or null when
// none flows to it (literals, none, indices and masks, integer operands, a zero gradient).
// Rules are only called when at least one result has a gradient.
using DerivativeRule = std::vector<Value*> (*)(const GradCall& call);

enum class Differentiability { Rule, NotDifferentiable, Pending, Unsupported };

struct DerivativeInfo {
  Differentiability kind;
  DerivativeRule rule;        // for Rule only
  const char* why = nullptr;  // for Unsupported only
};

const DerivativeInfo& derivative_info(OpKind op);

}  // namespace kiln
