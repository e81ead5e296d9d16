// Pointwise subgraphs of higher-order ops (SPEC.md 4): which bodies lowering may inline into
// the caller's kernels. A body is pointwise when every node of it is an elementwise op that
// lowering inlines; anything that would create a buffer (a reduction, an extern op, a view,
// a nested higher-order op) or mutate one (an in-place op, copy_) rejects the body, unless
// the op is on the approved list (LowerOptions::allowed_mutations), which lifts only that
// rule: an approved op still needs a pointwise lowering ("missing lowering" otherwise).
#pragma once

#include <string>

#include "ir/graph.h"
#include "ops/op_kind.h"
#include "ops/op_set.h"
#include "support/diagnostic.h"

namespace kiln {

// Whether lowering inlines node `n` as a scalar function of its operands (lower.cc).
using InlinesAsPointwise = bool (*)(const Node& n);

// Checks subgraph `index` of higher-order node `hop`. On failure the message names the
// higher-order op, the subgraph and the offending body op, e.g.
// "scan: combine_fn is not pointwise: 'sum' would create a buffer (subgraph lowering allows
// only pointwise ops)". The caller adds the node's location and IR text.
Status check_pointwise_subgraph(const Node& hop, int index, const OpSet& allowed_mutations, InlinesAsPointwise inlines);

}  // namespace kiln
