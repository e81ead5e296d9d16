// decompose: expands composite ops (gelu, softmax, layer_norm, cross_entropy, linear,
// scaled_dot_product_attention, conv2d, ...) into core ops (elementwise arithmetic, reductions,
// matmul, views, where, gather), as PyTorch's decomposition table does for AOTAutograd and
// Inductor. Each decomposition is a rewrite rule run by the shared driver (rewrite_rules.h),
// so an expansion that produces another selected composite op (cross_entropy -> log_softmax
// + nll_loss) is expanded in turn; ops not selected stay whole.
//
// Rewritten: every node of a selected op, in the graph and its subgraphs, unless its rule
// declines it. A rule declines a node whose attributes the kernel rejects (so the kernel still
// reports the error at run time) and the few variants it cannot express (listed in
// docs/DECISIONS.md, "Decompositions"); declined nodes stay as they are, uncounted.
// Preserves: the graph's inputs, outputs and their types; every result keeps its dtype and
// shape; values match the reference kernels up to rounding (the kernels compute in double).
// Expects: a verified graph. Counters: "rewrites" and one "rule.<op>" per op decomposed.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "passes/decompose_options.h"
#include "passes/pass_manager.h"
#include "support/diagnostic.h"

namespace kiln {

// Decomposes the ops `options` selects. An op selected that has no decomposition is an
// error naming it.
Expected<PassResult> decompose(Graph& g, const DecomposeOptions& options = {});

bool has_decomposition(OpKind op);

// The ops that have a decomposition, in ops.def order.
std::vector<OpKind> decomposable_ops();

// Op names separated by commas ("gelu,softmax") as DecomposeOptions; an unknown op name, or
// an op without a decomposition, is an error naming it.
Expected<DecomposeOptions> parse_decompose_ops(const std::string& names);

}  // namespace kiln
