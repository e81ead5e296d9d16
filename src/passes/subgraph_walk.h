// Runs a pass inside the subgraphs of a graph's nodes (one level; the pass recurses itself)
// and adds up one of its counters, for passes that treat subgraphs like the outer graph.
#pragma once

#include <string>

#include "passes/pass_manager.h"

namespace kiln {

inline int64_t run_in_subgraphs(Graph& g, PassResult (*pass)(Graph&), const std::string& counter) {
  int64_t total = 0;
  for (Node* n : g.nodes())
    for (int i = 0; i < n->num_subgraphs(); ++i) total += pass(*n->subgraph(i)).counters[counter];
  return total;
}

}  // namespace kiln
