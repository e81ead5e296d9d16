#include "passes/topo_sort.h"

#include <map>
#include <queue>
#include <set>

#include "ir/view_chain.h"
#include "ir/written_operands.h"
#include "support/check.h"

namespace kiln {

namespace {

bool is_ordered_effect(const Node& n) { return n.info().has(kSideEffect | kRandom); }

// Extra edges a -> b that data edges do not show, for the in-place and effect rules above.
std::vector<std::pair<Node*, Node*>> hidden_edges(const std::vector<Node*>& nodes) {
  std::vector<std::pair<Node*, Node*>> edges;
  Node* last_effect = nullptr;
  std::map<const Value*, std::vector<Node*>> touches;  // storage root -> nodes touching it, in order
  for (Node* n : nodes) {
    if (is_ordered_effect(*n)) {
      if (last_effect) edges.emplace_back(last_effect, n);
      last_effect = n;
    }
    std::set<const Value*> roots;
    for (const Operand& o : n->operands())
      if (o.value) roots.insert(storage_root(o.value));
    for (const Value* root : roots) touches[root].push_back(n);
  }
  for (auto& [root, users] : touches) {
    for (size_t i = 0; i < users.size(); ++i) {
      bool writes_root = false;
      for (int k : written_operands(*users[i])) writes_root |= storage_root(users[i]->operand(k).value) == root;
      if (!writes_root) continue;
      for (size_t j = 0; j < users.size(); ++j)
        if (j != i) edges.emplace_back(j < i ? users[j] : users[i], j < i ? users[i] : users[j]);
    }
  }
  return edges;
}

}  // namespace

PassResult sort_topologically(Graph& g) {
  PassResult result;
  for (Node* n : g.nodes())
    for (int i = 0; i < n->num_subgraphs(); ++i) result.changed |= sort_topologically(*n->subgraph(i)).changed;

  std::vector<Node*> nodes = g.nodes();
  std::map<Node*, size_t> position;
  for (size_t i = 0; i < nodes.size(); ++i) position[nodes[i]] = i;
  std::map<Node*, std::set<Node*>> successors;
  std::map<Node*, int> pending;
  auto add_edge = [&](Node* from, Node* to) {
    if (from != to && successors[from].insert(to).second) ++pending[to];
  };
  for (Node* n : nodes)
    for (const Operand& o : n->operands())
      if (o.value && o.value->producer()) add_edge(o.value->producer(), n);
  for (auto [from, to] : hidden_edges(nodes)) add_edge(from, to);

  // Ready nodes leave in original order, so an already valid order is kept unchanged.
  auto later = [&](Node* a, Node* b) { return position[a] > position[b]; };
  std::priority_queue<Node*, std::vector<Node*>, decltype(later)> ready(later);
  for (Node* n : nodes)
    if (pending[n] == 0) ready.push(n);
  std::vector<Node*> order;
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    order.push_back(n);
    for (Node* s : successors[n])
      if (--pending[s] == 0) ready.push(s);
  }
  KILN_CHECK(order.size() == nodes.size()) << "sort_topologically: the graph has a cycle";
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] != nodes[i]) result.changed = true;
    g.move_before(order[i], nullptr);
  }
  int64_t moved = 0;
  for (size_t i = 0; i < order.size(); ++i) moved += order[i] != nodes[i];
  result.counters["nodes_moved"] = moved;
  return result;
}

}  // namespace kiln
