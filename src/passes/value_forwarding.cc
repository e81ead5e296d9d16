// Storage roots and output/input aliasing for forwarding rewrites.
#include "passes/value_forwarding.h"

#include "ir/written_operands.h"

namespace kiln {

namespace {

bool collect(const Graph& g, std::unordered_set<const Graph*>& out) {
  bool mutates = false;
  for (Node* n : g.nodes()) {
    mutates |= writes_operands(*n);
    for (int i = 0; i < n->num_subgraphs(); ++i) mutates |= collect(*n->subgraph(i), out);
  }
  if (mutates) out.insert(&g);
  return mutates;
}

// The value whose storage `v` shares: follow view ops to the value they view.
const Value* storage_root(const Value* v) {
  while (v->producer() && v->producer()->info().has(kView) && v->producer()->num_operands() > 0 &&
         v->producer()->operand(0).is_value())
    v = v->producer()->operand(0).value;
  return v;
}

bool is_output_storage(const Graph& g, const Value* root) {
  for (const Value* out : g.outputs())
    if (storage_root(out) == root) return true;
  return false;
}

bool is_output(const Graph& g, const Value* v) {
  for (const Value* out : g.outputs())
    if (out == v) return true;
  return false;
}

}  // namespace

std::unordered_set<const Graph*> graphs_with_mutation(const Graph& g) {
  std::unordered_set<const Graph*> out;
  collect(g, out);
  return out;
}

bool may_forward(const Node& n, const Value* source) {
  const Graph& g = *n.graph();
  const Value* result = n.result();
  const Value* source_root = storage_root(source);
  const bool source_shared = source_root->is_input() || is_output_storage(g, source_root);
  if (n.info().has(kView)) return !(is_output(g, result) && source_shared);
  return !(is_output_storage(g, storage_root(result)) && source_shared);
}

}  // namespace kiln
