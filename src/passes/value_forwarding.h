// When a rewrite may replace a node's result by a value that already exists (forwarding
// `clone(x)` to `x`), rather than by a new node. Forwarding makes two values share storage,
// which is invisible in a functional graph but not where in-place ops write, and it must
// never make a graph output alias a graph input or another output (the rule of inductor's
// remove_noop_ops). Shared by remove_noop_ops, fold_constants and canonicalize.
#pragma once

#include <unordered_set>

#include "ir/graph.h"

namespace kiln {

// The graphs (g and its subgraphs, recursively) in which an in-place node appears, directly
// or inside one of their subgraphs. Forwarding and folding leave such graphs alone.
std::unordered_set<const Graph*> graphs_with_mutation(const Graph& g);

// True if every use of `n`'s single result may read `source` instead without creating new
// aliasing between the outputs and inputs of n's graph. A view node that is itself an output
// keeps its node when `source` shares storage with an input or an output; any other node
// whose storage is an output's keeps its node when `source` shares storage with an input or
// an output. Type equality is the caller's business.
bool may_forward(const Node& n, const Value* source);

}  // namespace kiln
