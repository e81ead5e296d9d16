#include "passes/lift_rng_state.h"

#include <string>
#include <unordered_set>

#include "ops/op_call.h"
#include "ops/rng_state.h"

namespace kiln {

namespace {

// The node's rng_state operand index when it draws random numbers without one, else -1.
int index_to_lift(const Node& n) {
  const int index = rng_state_operand_index(n.op());
  if (index < 0 || !draws_random_numbers(OpCallBase(n.op(), n.attrs()))) return -1;
  if (index < n.num_operands() && n.operand(index).is_value()) return -1;
  return index;
}

// Random nodes without rng_state in the subgraphs of g's nodes, at any depth.
int64_t count_in_subgraphs(const Graph& g) {
  int64_t count = 0;
  for (Node* n : g.nodes())
    for (int i = 0; i < n->num_subgraphs(); ++i) {
      const Graph& body = *n->subgraph(i);
      for (Node* inner : body.nodes()) count += index_to_lift(*inner) >= 0 ? 1 : 0;
      count += count_in_subgraphs(body);
    }
  return count;
}

// "rng_state", or "rng_state1", ... when an input already has that name.
std::string fresh_input_name(const Graph& g) {
  std::unordered_set<std::string> names;
  for (Value* in : g.inputs()) names.insert(in->name());
  std::string name = "rng_state";
  for (int k = 1; names.contains(name); ++k) name = "rng_state" + std::to_string(k);
  return name;
}

// Sets operand `index` of `n` to `state`. A node that leaves the operand out is rebuilt with
// `none` for the optional operands before it; its results' uses move to the new node.
void wire(Graph& g, Node* n, int index, Value* state) {
  if (index < n->num_operands()) {
    g.set_operand(n, index, state);
    return;
  }
  std::vector<Operand> operands(n->operands().begin(), n->operands().end());
  operands.resize(static_cast<size_t>(index), Operand(Scalar::none()));
  operands.emplace_back(state);
  std::vector<TensorType> types;
  for (Value* r : n->results()) types.push_back(r->type());
  Node* m = g.insert_before(n, {n->op(), std::move(operands), n->attrs(), std::move(types), {}, n->loc()});
  for (int i = 0; i < n->num_results(); ++i) g.replace_all_uses_with(n->result(i), m->result(i));
  g.erase(n);
}

}  // namespace

int find_rng_state_input(const Graph& g) {
  for (int i = 0; i < g.num_inputs(); ++i)
    if (g.input(i)->role() == InputRole::RngState) return i;
  return -1;
}

PassResult lift_rng_state(Graph& g) {
  PassResult result;
  result.counters["random_nodes_in_subgraphs"] = count_in_subgraphs(g);
  int64_t lifted = 0, added = 0;
  Value* state = nullptr;
  for (Node* n : g.nodes()) {
    const int index = index_to_lift(*n);
    if (index < 0) continue;
    if (state == nullptr) {
      const int existing = find_rng_state_input(g);
      added = existing < 0 ? 1 : 0;
      state = existing >= 0 ? g.input(existing)
                            : g.add_input(fresh_input_name(g), {DType::I64, Shape{2}}, InputRole::RngState);
    }
    wire(g, n, index, state);
    ++lifted;
  }
  result.changed = lifted > 0;
  result.counters["random_nodes_lifted"] = lifted;
  result.counters["rng_state_inputs_added"] = added;
  return result;
}

}  // namespace kiln
