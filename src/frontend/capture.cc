#include "frontend/capture.h"

#include <algorithm>
#include <map>

#include "frontend/trace.h"
#include "interp/interpreter.h"
#include "ir/verifier.h"
#include "support/error.h"

namespace kiln {
namespace {

Expected<std::vector<TensorType>> input_types(const std::vector<Tensor>& inputs, const CaptureOptions& options) {
  std::vector<TensorType> types;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined() || inputs[i].is_traced())
      return make_error("capture: example input ", i, " must be a concrete tensor");
    types.push_back(inputs[i].type());
  }
  std::map<std::string, int64_t> examples;  // symbol -> its example size
  for (const DynamicDim& d : options.dynamic) {
    if (d.input < 0 || static_cast<size_t>(d.input) >= inputs.size())
      return make_error("capture: dynamic dim ", d.symbol, " names input ", d.input, ", but there are ", inputs.size(),
                        " inputs");
    Shape& shape = types[static_cast<size_t>(d.input)].shape;
    const auto dim = wrap_dim(d.dim, shape.rank());
    if (!dim)
      return make_error("capture: dynamic dim ", d.symbol, " is dim ", d.dim, " of input ", d.input,
                        ", which has rank ", shape.rank());
    if (Status valid = SymExpr::check_symbol_name(d.symbol); !valid)
      return make_error("capture: dynamic dim ", d.dim, " of input ", d.input, ": ", valid.error().message());
    const int64_t size = inputs[static_cast<size_t>(d.input)].size(*dim);
    auto [it, inserted] = examples.emplace(d.symbol, size);
    if (!inserted && it->second != size)
      return make_error("capture: dynamic dim ", d.symbol, " has example size ", size, " in input ", d.input, " but ",
                        it->second, " elsewhere");
    shape[*dim] = Dim::symbol(d.symbol);
  }
  return types;
}

template <typename Fn>
Status check_callable(const Fn& fn) {
  if (!fn) return make_error("capture: the function to capture is an empty std::function");
  return Status::ok();
}

bool is_output(const Graph& g, const Node& n) {
  for (const Value* o : g.outputs())
    if (o->producer() == &n) return true;
  return false;
}

// Erases nodes with no users that are not graph outputs and satisfy `removable`, last first
// so that chains of dead nodes go in one sweep.
template <typename Pred>
void erase_unused(Graph& g, Pred removable) {
  std::vector<Node*> nodes = g.nodes();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it)
    if (!(*it)->has_users() && !is_output(g, **it) && removable(**it)) g.erase(*it);
}

void clean_up(Graph& g, bool for_pattern) {
  // Subgraphs (traced functions of cond, while_loop, scan, map) hold dead nodes too.
  for (Node* n : g.nodes())
    for (int i = 0; i < n->num_subgraphs(); ++i) clean_up(*n->subgraph(i), for_pattern);
  auto pure = [](const Node& n) { return n.info().is_pure(); };
  erase_unused(g, pure);
  if (!for_pattern) return;
  erase_unused(g, [](const Node& n) { return n.op() == OpKind::CopyInplace; });
  erase_unused(g, pure);
}

}  // namespace

Expected<std::vector<Tensor>> Captured::run(std::span<const Tensor> inputs) const {
  std::vector<Tensor> all(inputs.begin(), inputs.end());
  all.insert(all.end(), lifted.begin(), lifted.end());
  return interpret(*graph, all);
}

Expected<Captured> capture(CaptureFn fn, std::vector<Tensor> example_inputs, const CaptureOptions& options) {
  KILN_TRY(check_callable(fn));
  KILN_ASSIGN_OR_RETURN(std::vector<TensorType> types, input_types(example_inputs, options));
  auto graph = std::make_unique<Graph>(options.name);
  TraceContext ctx(*graph, options.module);
  std::vector<Tensor> traced;
  for (size_t i = 0; i < types.size(); ++i) {
    std::string name = i < options.input_names.size() ? options.input_names[i] : "x" + std::to_string(i);
    traced.push_back(ctx.wrap(graph->add_input(std::move(name), types[i])));
  }
  std::vector<Tensor> outputs;
  try {
    TraceScope scope(&ctx);
    outputs = fn(traced);
  } catch (const Error& e) {
    return e.diagnostic();
  }
  std::vector<Value*> output_values;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].defined()) return make_error("capture: output ", i, " of the captured function is undefined");
    KILN_ASSIGN_OR_RETURN(Value * v, ctx.value_of(outputs[i]));
    output_values.push_back(v);
  }
  graph->set_outputs(std::move(output_values));
  clean_up(*graph, options.for_pattern);
  KILN_TRY(verify_graph(*graph));
  return Captured{std::move(graph), ctx.lifted()};
}

Expected<Captured> capture(CaptureFn1 fn, std::vector<Tensor> example_inputs, const CaptureOptions& options) {
  KILN_TRY(check_callable(fn));
  return capture(CaptureFn([fn = std::move(fn)](std::span<const Tensor> in) { return std::vector<Tensor>{fn(in)}; }),
                 std::move(example_inputs), options);
}

}  // namespace kiln
