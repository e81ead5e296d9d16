// Replays a graph through the frontend, node by node, as a user program would call the ops:
// the check that capture records what eager execution does (`kiln run --check-capture`
// compares eager replay, interpreted captured replay and the interpreted original).
#pragma once

#include <span>
#include <vector>

#include "core/tensor.h"
#include "frontend/capture.h"
#include "ir/graph.h"
#include "support/diagnostic.h"

namespace kiln {

// Runs the nodes of `g` through dispatch() on `inputs`, concrete or traced: a graph called as a
// function. Inside capture() its ops are recorded like any other call's (nn::GraphModule);
// outside they run eagerly.
Expected<std::vector<Tensor>> replay_graph(const Graph& g, std::span<const Tensor> inputs);

// Runs each node through dispatch() on concrete tensors (the eager path, not the
// interpreter's loop); higher-order nodes run their subgraphs in the interpreter.
Expected<std::vector<Tensor>> replay_eager(const Graph& g, std::span<const Tensor> inputs);

// The same replay inside capture(): a freshly captured graph with the original's name, input
// names, roles and symbolic dims.
Expected<Captured> replay_capture(const Graph& g, std::span<const Tensor> example_inputs);

}  // namespace kiln
