// remove_noop_ops: replaces nodes that return their operand unchanged by that operand
// (inductor's remove_noop_ops). Rewritten, each only when the result type (shape and dtype)
// equals the operand's exactly:
//   views: view/reshape/expand/flatten/squeeze to the same shape, slice of everything,
//          identity permute, transpose of a dim with itself;
//   copies: clone, contiguous, _to_copy to the same dtype, constant_pad_nd with all-zero
//          pads, repeat by all ones, cat of one tensor, floor/ceil/trunc/round of integers,
//          pow(x, 1);
//   arithmetic: add/sub of zero (a literal or a zeros/full value, finite alpha), mul or div
//          (without rounding mode) by one. `x + 0.0` maps -0.0 to +0.0; like inductor, kiln
//          treats it as a no-op anyway (see docs/DECISIONS.md).
// Preserved: a node is kept when forwarding would make a graph output alias a graph input or
// another output (passes/value_forwarding.h); graphs that contain in-place nodes are left
// alone; in-place and random nodes are never rewritten. Subgraphs are rewritten on their own.
#pragma once

#include "ir/graph.h"
#include "passes/pass_manager.h"
#include "passes/rewrite_rules.h"
#include "passes/value_forwarding.h"

namespace kiln {

// The rule set, for tests and for pipelines that combine rule sets. `mutating` lists the
// graphs to leave alone (graphs_with_mutation); it must outlive the rules.
RuleSet remove_noop_rules(const std::unordered_set<const Graph*>& mutating);

// Counters: the driver's ("rewrites", "rule.<name>", "iterations").
Expected<PassResult> remove_noop_ops(Graph& g, const RuleDriverOptions& options = {});

}  // namespace kiln
