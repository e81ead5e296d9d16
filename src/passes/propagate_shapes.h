// propagate_shapes: recomputes every node's result types (shape and dtype) from its
// operands with the op rules, in order, inside subgraphs too. The graph's input types are
// the source of truth; a recorded result type that disagrees is updated.
//   cond: both branches are propagated with the operand types; where their result dims
//     differ the result gets a fresh symbol instead of an error.
//   while_loop, scan: the carried types are iterated to a fixed point; a carried dim that
//     changes across iterations becomes a loop symbol (the body's input type gets it).
//   map: the body is propagated with the slice types.
// Fresh symbols are named s0, s1, ... in graph order, skipping names the graph uses; a
// symbol already recorded at that place is kept, so the pass is idempotent. The guards the
// rules assume (B*T == 4096) replace the graph's recorded guards.
// Counters: "types_changed" (result and subgraph input types updated), "guards",
// "fresh_symbols". Errors (true mismatches) name the node and the rule.
#pragma once

#include "ir/graph.h"
#include "passes/pass_manager.h"

namespace kiln {

Expected<PassResult> propagate_shapes(Graph& g);

}  // namespace kiln
