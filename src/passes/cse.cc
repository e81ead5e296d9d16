#include "passes/cse.h"

#include "ir/written_operands.h"
#include "passes/subgraph_walk.h"

#include <map>
#include <set>
#include <string>
#include <tuple>

namespace kiln {

namespace {

// Values that an in-place op or a kernel call writes, and every view of them: their contents
// are not a function of the node that produced them, so reading them is not a pure expression.
std::set<const Value*> mutated_values(const Graph& g) {
  std::set<const Value*> out;
  for (Node* n : g.nodes()) {
    for (int i : written_operands(*n)) {
      const Value* v = n->operand(i).value;
      // Walk up through views: writing a view writes its base.
      while (v) {
        out.insert(v);
        Node* p = v->producer();
        v = p && p->info().has(kView) ? p->operand(0).value : nullptr;
      }
    }
  }
  // Views of a mutated value see the mutation too.
  for (Node* n : g.nodes())
    if (n->info().has(kView) && n->operand(0).value && out.count(n->operand(0).value))
      for (Value* r : n->results()) out.insert(r);
  return out;
}

// Everything that makes two nodes compute the same thing, as a comparable key.
using Key = std::tuple<int, std::vector<std::pair<const Value*, std::string>>, std::string, std::vector<std::string>>;

Key key_of(const Node& n) {
  std::vector<std::pair<const Value*, std::string>> operands;
  for (const Operand& o : n.operands()) operands.emplace_back(o.value, o.value ? "" : o.literal.to_string());
  std::vector<std::string> types;
  for (Value* r : n.results()) types.push_back(r->type().to_string());
  return {static_cast<int>(n.op()), std::move(operands), n.attrs().to_string(), std::move(types)};
}

}  // namespace

PassResult eliminate_common_subexpressions(Graph& g) {
  PassResult result;
  int64_t merged = run_in_subgraphs(g, eliminate_common_subexpressions, "nodes_merged");

  std::set<const Value*> mutated = mutated_values(g);
  std::map<Key, Node*> seen;
  for (Node* n : g.nodes()) {
    if (!n->info().is_pure() || n->num_subgraphs() > 0) continue;
    bool reads_mutated = false;
    for (const Operand& o : n->operands()) reads_mutated |= o.value && mutated.count(o.value) > 0;
    for (Value* r : n->results()) reads_mutated |= mutated.count(r) > 0;
    if (reads_mutated) continue;
    auto [it, inserted] = seen.emplace(key_of(*n), n);
    if (inserted) continue;
    Node* earlier = it->second;
    for (int i = 0; i < n->num_results(); ++i) g.replace_all_uses_with(n->result(i), earlier->result(i));
    g.erase(n);
    ++merged;
  }
  result.changed = merged > 0;
  result.counters["nodes_merged"] = merged;
  return result;
}

}  // namespace kiln
