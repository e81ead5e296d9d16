#include "passes/specialize_shapes.h"

#include <vector>

#include "core/symbol_bindings.h"
#include "passes/propagate_shapes.h"

namespace kiln {

std::string symbol_values_text(const std::map<std::string, int64_t>& symbols) {
  std::string text;
  for (const auto& [name, value] : symbols) text += (text.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  return text;
}

namespace {

// Every attribute of `g`'s nodes (subgraphs included) with the bound symbols replaced.
void substitute_attrs(Graph& g, const std::map<std::string, int64_t>& symbols) {
  for (Node* n : g.nodes()) {
    if (n->attrs().is_symbolic()) n->mutable_attrs() = n->attrs().substitute(symbols);
    for (int i = 0; i < n->num_subgraphs(); ++i) substitute_attrs(*n->subgraph(i), symbols);
  }
}

}  // namespace

Expected<Specialized> specialize_shapes(const Graph& g, std::span<const Tensor> inputs) {
  std::vector<TensorType> types;
  for (const Tensor& t : inputs) types.push_back(t.type());
  return specialize_shapes(g, types);
}

bool has_symbolic_inputs(const Graph& g) {
  for (const Value* v : g.inputs())
    for (int d = 0; d < v->type().shape.rank(); ++d)
      if (v->type().shape[d].is_symbolic()) return true;
  return false;
}

Expected<Specialized> specialize_shapes(const Graph& g, std::span<const TensorType> inputs) {
  if (static_cast<int>(inputs.size()) != g.num_inputs())
    return make_error("specialize @", g.name(), ": ", inputs.size(), " input types for ", g.num_inputs(), " inputs");
  SymbolBindings bindings;
  for (int i = 0; i < g.num_inputs(); ++i)
    KILN_TRY(bindings.bind(g.input(i)->type(), inputs[static_cast<size_t>(i)], "input %" + g.input(i)->name()));
  const std::map<std::string, int64_t>& symbols = bindings.values();
  for (const Graph::Guard& guard : g.guards()) {
    const std::optional<bool> holds = guard.guard.holds(symbols);
    if (holds && !*holds) {
      return make_error("specialize @", g.name(), ": guard ", guard.guard.to_string(), " does not hold for ",
                        symbol_values_text(symbols));
    }
  }
  Specialized s{g.clone(), symbols};
  // The concrete input types, then the op rules on them give every other type (subgraphs
  // included); what a symbolic dim hid (a narrow past the end of a dim of B) is an error
  // here, naming the node, as the interpreter reports it.
  for (int i = 0; i < g.num_inputs(); ++i) s.graph->input(i)->set_type(inputs[static_cast<size_t>(i)]);
  // Symbolic attributes (`view {size=[B, -1]}`) take the values too, before the rules run.
  substitute_attrs(*s.graph, symbols);
  Expected<PassResult> checked = propagate_shapes(*s.graph);
  if (!checked) return checked.error().add_context("while specializing @" + g.name() + " to its inputs' sizes");
  // Guards the values decide are dropped (they hold); those naming symbols the inputs leave
  // free stay, on the clone's node at the same place.
  const std::vector<Node*> before = g.nodes(), after = s.graph->nodes();
  s.graph->clear_guards();
  for (const Graph::Guard& guard : g.guards()) {
    if (guard.guard.holds(symbols)) continue;
    Node* at = nullptr;
    for (size_t i = 0; i < before.size() && i < after.size(); ++i)
      if (before[i] == guard.node) at = after[i];
    s.graph->add_guard(guard.guard, at);
  }
  return s;
}

}  // namespace kiln
