// Rule sets for local rewrites (canonicalization, decomposition, algebraic simplification),
// run by one driver. A rule looks at one node; when it matches it builds the replacement with
// the GraphBuilder it is given (new nodes go just before the node) and returns one value per
// result of the node, each of the same type. When it does not match it returns nullopt and
// must not have built anything. The driver replaces every use of the node's results, erases
// the node, and sweeps the graph again until a sweep changes nothing or the iteration limit is
// reached; with must_converge (for tests) reaching the limit is an error naming the rule set.
//
// Rules only see nodes of their root ops; a rule never sees in-place, random or side-effecting
// nodes unless it lists them as roots explicitly. Subgraphs are rewritten first, each on its
// own, so a rule never reaches across a subgraph boundary.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/graph_builder.h"
#include "passes/pass_manager.h"
#include "support/diagnostic.h"

namespace kiln {

using RewriteFn = std::function<std::optional<std::vector<Value*>>(Node& node, GraphBuilder& builder)>;

struct RewriteRule {
  std::string name;           // counted as "rule.<name>" in the PassResult
  std::vector<OpKind> roots;  // the ops this rule looks at
  RewriteFn rewrite;
};

struct RuleSet {
  std::string name;  // for errors: "canonicalize", "decompose"
  std::vector<RewriteRule> rules;
};

struct RuleDriverOptions {
  int max_iterations = 16;     // sweeps over the graph
  bool must_converge = false;  // reaching max_iterations with changes is an error
};

// Applies `rules` to `g` and its subgraphs. Counters: "rewrites" (total) and one
// "rule.<name>" per rule that fired; "iterations" is the number of sweeps of the top graph.
Expected<PassResult> apply_rules(Graph& g, const RuleSet& rules, const RuleDriverOptions& options = {});

}  // namespace kiln
