#include "passes/dce.h"

#include "passes/subgraph_walk.h"

namespace kiln {

bool is_removable_when_unused(const Node& n) {
  const OpInfo& info = n.info();
  if (!info.is_pure()) return false;
  // A higher-order op is as pure as its bodies.
  for (int i = 0; i < n.num_subgraphs(); ++i)
    for (Node* inner : n.subgraph(i)->nodes())
      if (!is_removable_when_unused(*inner)) return false;
  return true;
}

PassResult eliminate_dead_code(Graph& g) {
  PassResult result;
  int64_t removed = run_in_subgraphs(g, eliminate_dead_code, "nodes_removed");
  // Walk backwards so a node's users are gone before the node is looked at.
  std::vector<Node*> nodes = g.nodes();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    Node* n = *it;
    bool is_output = false;
    for (Value* r : n->results())
      for (Value* o : g.outputs()) is_output |= (o == r);
    if (is_output || n->has_users() || !is_removable_when_unused(*n)) continue;
    g.erase(n);
    ++removed;
  }
  result.changed = removed > 0;
  result.counters["nodes_removed"] = removed;
  return result;
}

}  // namespace kiln
