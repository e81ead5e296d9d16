// Checks a graph's invariants: use lists match operands, every operand is defined before use
// (in this graph; subgraphs are closed), operand counts, operand kinds and attribute types
// fit the op's schema, subgraph counts and signatures fit, and each node's result types are
// what the op's shape and dtype rules give (symbolic dims compared by name). Errors name the
// node in IR syntax and its source location ("file:line:col: message").
#pragma once

#include "ir/graph.h"
#include "support/diagnostic.h"

namespace kiln {

Status verify_graph(const Graph& g);

}  // namespace kiln
