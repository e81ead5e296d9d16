// eliminate_dead_code: erases pure nodes none of whose results is used (transitively),
// in this graph and in subgraphs. Keeps nodes with side effects, random ops, in-place ops
// and higher-order ops whose bodies are not pure. Preserves graph inputs and outputs.
#pragma once

#include "ir/graph.h"
#include "passes/pass_manager.h"

namespace kiln {

PassResult eliminate_dead_code(Graph& g);

// True if removing `n` when its results are unused cannot change what the graph does.
bool is_removable_when_unused(const Node& n);

}  // namespace kiln
