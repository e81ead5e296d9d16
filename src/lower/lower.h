// Lowering a graph to the loop IR (docs/LOWERING.md). Elementwise ops become pointwise
// kernels, sum/mean/amax/amin become reduction kernels, views become index arithmetic in
// their consumers' loads (no kernel of their own), and every other op is an extern kernel run
// by its reference kernel. One kernel per node: fusion is the next step.
#pragma once

#include "ir/graph.h"
#include "lower/loop_ir.h"
#include "support/diagnostic.h"

namespace kiln {

// Requires static shapes and no subgraphs; otherwise an error naming the node in IR syntax.
Expected<LoopProgram> lower_graph(const Graph& g);

}  // namespace kiln
