// fold_constants: uniform-value constant folding (inductor's constant_fold_uniform_value).
// Rewritten: a pure node whose tensor operands are all uniform constants (full, zeros, ones,
// full_like, zeros_like, ones_like; see passes/uniform_value.h) and whose result has a static
// shape is evaluated with the reference kernels; when every element of the result is the
// same number it becomes `full(size, value, dtype)`. Elementwise ops are evaluated on one
// element per operand, so they fold at any size; other ops (reductions, views, matmul, ...)
// are evaluated on materialized operands only when every operand and the result have at most
// FoldOptions::max_elements elements. *_like nodes of a static shape become `full` (they no
// longer read their operand). Nodes the fold leaves unused are erased (dead-code elimination).
// Preserved: random, in-place and side-effecting ops, empty, arange and higher-order ops are
// never evaluated; a kernel error (integer division by zero) leaves the node for run time;
// graphs with in-place nodes are left alone. kiln's IR has no literal for a non-uniform
// tensor, so a non-uniform result is left as computed (docs/DECISIONS.md).
#pragma once

#include "ir/graph.h"
#include "passes/pass_manager.h"
#include "passes/rewrite_rules.h"
#include "passes/value_forwarding.h"

namespace kiln {

struct FoldOptions {
  // Largest operand or result, in elements, that a non-elementwise fold materializes.
  int64_t max_elements = 4096;
  RuleDriverOptions driver = {};
};

RuleSet fold_constant_rules(const std::unordered_set<const Graph*>& mutating, const FoldOptions& options);

// Counters: the driver's, plus "nodes_removed" from the final dead-code elimination.
Expected<PassResult> fold_constants(Graph& g, const FoldOptions& options = {});

}  // namespace kiln
