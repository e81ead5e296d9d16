// eliminate_common_subexpressions: merges a pure node into an earlier identical one (same
// op, same operands, same attributes, same result types, no subgraphs), in this graph and in
// subgraphs. Random, side-effecting, in-place and higher-order ops are never merged, and
// neither are nodes that read a value an in-place op writes afterwards... or before: any
// value that some in-place node mutates is excluded entirely, since its contents change
// over time. The merged node is erased; uses move to the earlier one.
#pragma once

#include "ir/graph.h"
#include "passes/pass_manager.h"

namespace kiln {

PassResult eliminate_common_subexpressions(Graph& g);

}  // namespace kiln
