// canonicalize: algebraic canonicalization as one rule set run by the shared driver
// (passes/rewrite_rules.h). Every rule is exact: the rewritten graph computes the same bits
// on the reference interpreter (NaN payloads aside). Canonical forms, chosen so that later
// pattern matchers (attention fusion) see one spelling:
//   commutative ops keep a constant (full/zeros/ones) operand on the right;
//   `x - c` is `x + (-c)` for a literal c; `x / 2^k` is `x * 2^-k` (floating x, |k| <= 14);
//   `x * -1` is `neg(x)`; `x + x` is `x * 2`; `x + neg(y)` is `x - y`; `x - neg(y)` is `x + y`;
//   neg(neg(x)), logical_not(logical_not(x)) and bitwise_not(bitwise_not(x)) are x;
//   `t(x)` of a matrix is `transpose(x, 0, 1)`; transpose dims are non-negative and ascending;
//   transpose(transpose(x, a, b), a, b) is x; permute of permute is one permute;
//   reshape of reshape is one reshape (static shapes); reduction dim lists are non-negative
//   and ascending; a cast through a dtype that holds every value exactly is one cast.
// Preserved: rules that forward an existing value (double negation, transpose pairs) follow
// passes/value_forwarding.h (no new output aliasing); forwarding rules and reshape chains
// skip graphs with in-place nodes; in-place and random nodes are never rewritten. Nodes left
// unused are erased (dead-code elimination).
#pragma once

#include "ir/graph.h"
#include "passes/pass_manager.h"
#include "passes/rewrite_rules.h"
#include "passes/value_forwarding.h"

namespace kiln {

RuleSet canonicalize_rules(const std::unordered_set<const Graph*>& mutating);

// Counters: the driver's, plus "nodes_removed" from the final dead-code elimination.
Expected<PassResult> canonicalize(Graph& g, const RuleDriverOptions& options = {});

}  // namespace kiln
