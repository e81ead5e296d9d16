#include "passes/rewrite_rules.h"

#include <unordered_map>

#include "ir/printer.h"
#include "support/check.h"

namespace kiln {

namespace {

using RulesByOp = std::unordered_map<OpKind, std::vector<const RewriteRule*>>;

RulesByOp index_rules(const RuleSet& set) {
  RulesByOp by_op;
  for (const RewriteRule& rule : set.rules)
    for (OpKind op : rule.roots) by_op[op].push_back(&rule);
  return by_op;
}

// Replaces `n`'s results by `replacements` and erases `n`.
void replace_node(Graph& g, Node* n, const std::vector<Value*>& replacements, const RewriteRule& rule) {
  KILN_CHECK(static_cast<int>(replacements.size()) == n->num_results())
      << "rule " << rule.name << " gave " << replacements.size() << " values for " << print_node(*n);
  for (int i = 0; i < n->num_results(); ++i) {
    Value* from = n->result(i);
    Value* to = replacements[static_cast<size_t>(i)];
    KILN_CHECK(to != nullptr && to->type() == from->type())
        << "rule " << rule.name << " replaced a result of type " << from->type().to_string() << " by "
        << (to ? to->type().to_string() : std::string("null")) << " at " << print_node(*n);
    if (to != from) g.replace_all_uses_with(from, to);
  }
  g.erase(n);
}

// One sweep over g's nodes in order; the number of rewrites.
int64_t sweep(Graph& g, const RulesByOp& by_op, PassResult& result) {
  int64_t rewrites = 0;
  for (Node* n : g.nodes()) {
    auto it = by_op.find(n->op());
    if (it == by_op.end()) continue;
    for (const RewriteRule* rule : it->second) {
      GraphBuilder builder(g, n);
      std::optional<std::vector<Value*>> replacements = rule->rewrite(*n, builder);
      if (!replacements) continue;
      replace_node(g, n, *replacements, *rule);
      ++result.counters["rule." + rule->name];
      ++rewrites;
      break;  // n is gone
    }
  }
  return rewrites;
}

Status apply_in_graph(Graph& g, const RuleSet& set, const RulesByOp& by_op, const RuleDriverOptions& options,
                      PassResult& result, bool top) {
  for (Node* n : g.nodes())
    for (int i = 0; i < n->num_subgraphs(); ++i) {
      Status s = apply_in_graph(*n->subgraph(i), set, by_op, options, result, false);
      if (!s) return s;
    }
  int iterations = 0;
  while (true) {
    if (iterations == options.max_iterations) {
      if (options.must_converge)
        return make_error("rule set ", set.name, " did not converge on graph @", g.name(), " after ",
                          options.max_iterations, " iterations");
      break;
    }
    ++iterations;
    const int64_t rewrites = sweep(g, by_op, result);
    result.counters["rewrites"] += rewrites;
    if (rewrites == 0) break;
  }
  if (top) result.counters["iterations"] = iterations;
  return Status::ok();
}

}  // namespace

Expected<PassResult> apply_rules(Graph& g, const RuleSet& rules, const RuleDriverOptions& options) {
  PassResult result;
  const RulesByOp by_op = index_rules(rules);
  Status s = apply_in_graph(g, rules, by_op, options, result, true);
  if (!s) return s.error();
  result.changed = result.counters["rewrites"] > 0;
  return result;
}

}  // namespace kiln
