// canonicalize's entry point and the helpers its rules share.
#include "passes/canonicalize.h"

#include "ops/op_call.h"
#include "passes/canonicalize_rules.h"
#include "passes/dce.h"

namespace kiln {

namespace canonicalize_detail {

Match build_same_type(const Node& n, GraphBuilder& b, OpKind op, std::vector<Operand> operands, AttrMap attrs) {
  std::vector<TypeOperand> types;
  for (const Operand& o : operands)
    types.push_back(o.is_value() ? TypeOperand{o.value->type(), Scalar()} : TypeOperand{std::nullopt, o.literal});
  Expected<std::vector<TensorType>> inferred = infer_types(TypeCall(op, attrs, types));
  if (!inferred || inferred->size() != 1 || (*inferred)[0] != n.result()->type()) return std::nullopt;
  return std::vector<Value*>{b.apply1(op, std::move(operands), std::move(attrs))};
}

Match forward(const Node& n, Value* source, const Mutating& mutating) {
  if (!source || mutating.count(n.graph()) || source->type() != n.result()->type() || !may_forward(n, source))
    return std::nullopt;
  return std::vector<Value*>{source};
}

Node* operand_producer(const Node& n, int i, OpKind op) {
  if (i >= n.num_operands() || !n.operand(i).is_value()) return nullptr;
  Node* p = n.operand(i).value->producer();
  return p && p->op() == op && p->num_results() == 1 ? p : nullptr;
}

}  // namespace canonicalize_detail

RuleSet canonicalize_rules(const std::unordered_set<const Graph*>& mutating) {
  using namespace canonicalize_detail;
  RuleSet set{"canonicalize", canonicalize_arith_rules(mutating)};
  for (RewriteRule& r : canonicalize_layout_rules(mutating)) set.rules.push_back(std::move(r));
  return set;
}

Expected<PassResult> canonicalize(Graph& g, const RuleDriverOptions& options) {
  const std::unordered_set<const Graph*> mutating = graphs_with_mutation(g);
  KILN_ASSIGN_OR_RETURN(PassResult result, apply_rules(g, canonicalize_rules(mutating), options));
  if (!result.changed) return result;
  PassResult dce = eliminate_dead_code(g);
  result.counters["nodes_removed"] = dce.counters["nodes_removed"];
  return result;
}

}  // namespace kiln
