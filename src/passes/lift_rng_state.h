// lift_rng_state: makes the random draws of a graph depend on one runtime generator state,
// so a compiled step can draw fresh numbers on every run and recomputation replays them.
// Every node of the top-level graph that draws random numbers (ops/rng_state.h) and has no
// rng_state operand gets the graph's input of role rng_state as that operand: an existing one
// is reused, else one input `%rng_state: rng_state i64[2]` is added last. Nodes keep their
// seed attributes (so nodes sharing the state still draw different streams), their results
// and their uses. Random nodes inside subgraphs (cond, scan, map bodies) keep their static
// seeds: a body sees only its own inputs, and threading the state through every higher-order
// op is not done; they are counted. Counters: "random_nodes_lifted",
// "random_nodes_in_subgraphs", "rng_state_inputs_added".
#pragma once

#include "ir/graph.h"
#include "passes/pass_manager.h"

namespace kiln {

PassResult lift_rng_state(Graph& g);

// Index of the graph's first input of role rng_state, or -1 when it has none.
int find_rng_state_input(const Graph& g);

}  // namespace kiln
