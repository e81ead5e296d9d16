// What the op rules (ops/op_call.h) need to know about a node's operands and bodies to
// compute its result types: shared by the verifier, which checks recorded types, and
// propagate-shapes, which recomputes them.
#pragma once

#include <vector>

#include "ir/graph.h"
#include "ops/op_call.h"

namespace kiln {

// One TypeOperand per operand: the value's type, or the inline literal.
inline std::vector<TypeOperand> type_operands(const Node& n) {
  std::vector<TypeOperand> operands;
  for (const Operand& o : n.operands()) {
    TypeOperand t;
    if (o.is_value()) t.type = o.value->type();
    t.literal = o.literal;
    operands.push_back(std::move(t));
  }
  return operands;
}

// The signature of each of the node's subgraphs, in order.
inline std::vector<SubgraphSignature> subgraph_signatures(const Node& n) {
  std::vector<SubgraphSignature> signatures;
  for (int i = 0; i < n.num_subgraphs(); ++i) signatures.push_back(graph_signature(*n.subgraph(i)));
  return signatures;
}

}  // namespace kiln
