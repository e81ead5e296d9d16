// mark_unique_indices ("unique-index", SPEC.md 5.7): marks `index`, `index_put` and
// `index_add` nodes whose index is a prefix of a random permutation, `slice(randperm(n), 0,
// 0, k)` or `randperm(n)` itself, with `unique_indices=true`: the entries are then distinct
// and in [0, n), and n <= the indexed dim's size proves them in bounds, so a backend may use
// plain stores without atomics or bounds checks. The reference rewrites these ops into
// `_unsafe_index` / `_unsafe_index_put`; kiln keeps the op and sets the attribute.
//
// Marked: index(x, [i]) and index_put(x, [i], v) with one index tensor, for dim 0;
// index_add(x, dim, i, s) for any dim; x's indexed dim static and >= n. Left alone: any other
// index (not from randperm, a slice that does not start at 0 or steps, randperm of more
// elements than the dim has), several index tensors, a symbolic dim. Changes nothing else;
// results are unchanged (the attribute does not change what the kernels compute). Runs in
// subgraphs too. Counter: "marked".
#pragma once

#include "ir/graph.h"
#include "passes/pass_manager.h"

namespace kiln {

PassResult mark_unique_indices(Graph& g);

}  // namespace kiln
