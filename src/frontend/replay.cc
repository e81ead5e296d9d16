#include "frontend/replay.h"

#include <unordered_map>

#include "frontend/dispatch.h"
#include "ir/printer.h"
#include "support/check.h"
#include "support/error.h"

namespace kiln {

Expected<std::vector<Tensor>> replay_graph(const Graph& g, std::span<const Tensor> inputs) {
  if (static_cast<int>(inputs.size()) != g.num_inputs())
    return make_error("graph @", g.name(), " takes ", g.num_inputs(), " inputs, got ", inputs.size());
  std::unordered_map<const Value*, Tensor> env;
  for (int i = 0; i < g.num_inputs(); ++i) env[g.input(i)] = inputs[static_cast<size_t>(i)];
  for (Node* node = g.first_node(); node; node = g.next_node(node)) {
    std::vector<KernelOperand> operands;
    for (const Operand& o : node->operands()) {
      KernelOperand k;
      if (o.is_value())
        k.tensor = env.at(o.value);
      else
        k.literal = o.literal;
      operands.push_back(std::move(k));
    }
    std::vector<const Graph*> subgraphs;
    for (int i = 0; i < node->num_subgraphs(); ++i) subgraphs.push_back(node->subgraph(i));
    auto results = dispatch_higher_order(node->op(), std::move(operands), node->attrs(), subgraphs, node->loc());
    if (!results) {
      Diagnostic d = results.error();
      d.add_context("while replaying " + print_node(*node));
      return d;
    }
    KILN_CHECK(static_cast<int>(results->size()) == node->num_results())
        << "replay of " << node->info().name() << " gave " << results->size() << " results";
    for (int i = 0; i < node->num_results(); ++i) env[node->result(i)] = (*results)[static_cast<size_t>(i)];
  }
  std::vector<Tensor> out;
  for (const Value* v : g.outputs()) out.push_back(env.at(v));
  return out;
}

Expected<std::vector<Tensor>> replay_eager(const Graph& g, std::span<const Tensor> inputs) {
  for (const Tensor& t : inputs)
    if (!t.defined() || t.is_traced()) return make_error("replay_eager: inputs must be concrete tensors");
  return replay_graph(g, inputs);
}

Expected<Captured> replay_capture(const Graph& g, std::span<const Tensor> example_inputs) {
  CaptureOptions options;
  options.name = g.name();
  for (int i = 0; i < g.num_inputs(); ++i) {
    const Value* in = g.input(i);
    options.input_names.push_back(in->name());
    const Shape& shape = in->type().shape;
    for (int d = 0; d < shape.rank(); ++d)
      if (shape[d].is_symbol()) options.dynamic.push_back({d, shape[d].symbol_name(), i});
  }
  const Graph* source = &g;
  auto fn = [source](std::span<const Tensor> in) { return value_or_throw(replay_graph(*source, in)); };
  KILN_ASSIGN_OR_RETURN(
      Captured captured,
      capture(CaptureFn(fn), std::vector<Tensor>(example_inputs.begin(), example_inputs.end()), options));
  for (int i = 0; i < g.num_inputs() && i < captured.graph->num_inputs(); ++i)
    captured.graph->input(i)->set_role(g.input(i)->role());
  return captured;
}

}  // namespace kiln
