// Prints graphs in kiln's text form (STYLE.md), deterministically: graph order, attributes
// sorted by name, results numbered %0, %1, ... in order, inputs by name. parse_graph reads
// this text back to a graph that prints identically.
#pragma once

#include <string>

#include "ir/graph.h"

namespace kiln {

std::string print_graph(const Graph& g);
// One node in IR syntax ("%3 = add(%1, %2) : f32[4]") with the names print_graph would use;
// for error messages. Subgraphs are abbreviated.
std::string print_node(const Node& n);

}  // namespace kiln
