#include "frontend/subgraph_trace.h"

#include <algorithm>
#include <unordered_map>

#include "support/check.h"

namespace kiln {

TracedSubgraph trace_subgraph(TraceContext& parent, const GraphFn& fn, const std::vector<TensorType>& arg_types,
                              const std::string& op, const std::string& fn_name) {
  TracedSubgraph sub{std::make_unique<Graph>(fn_name), static_cast<int>(arg_types.size()), {}};
  TraceContext ctx(*sub.graph, parent);
  std::vector<Tensor> args;
  for (size_t i = 0; i < arg_types.size(); ++i)
    args.push_back(ctx.wrap(sub.graph->add_input("arg" + std::to_string(i), arg_types[i])));
  std::vector<Tensor> results;
  {
    TraceScope scope(&ctx);
    results = fn(args);
  }
  std::vector<Value*> outputs;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].defined())
      throw Error(make_error(op, ": ", fn_name, " returned an undefined tensor as output ", i));
    outputs.push_back(value_or_throw(ctx.value_of(results[i])));
  }
  sub.graph->set_outputs(std::move(outputs));
  sub.closures = ctx.closures();
  return sub;
}

std::vector<Value*> closure_union(const std::vector<const TracedSubgraph*>& subs) {
  std::vector<Value*> all;
  for (const TracedSubgraph* s : subs)
    for (Value* v : s->closures)
      if (std::find(all.begin(), all.end(), v) == all.end()) all.push_back(v);
  return all;
}

std::unique_ptr<Graph> close_over(const TracedSubgraph& sub, const std::vector<Value*>& closures, int at,
                                  std::optional<int> return_at) {
  const Graph& src = *sub.graph;
  KILN_CHECK(0 <= at && at <= sub.num_args) << "close_over: argument position " << at << " of " << sub.num_args;
  auto g = std::make_unique<Graph>(src.name());
  std::unordered_map<const Value*, Value*> value_map;
  auto copy_arg = [&](int i) { value_map[src.input(i)] = g->add_input(src.input(i)->name(), src.input(i)->type()); };
  for (int i = 0; i < at; ++i) copy_arg(i);
  std::vector<Value*> closure_inputs;
  for (size_t k = 0; k < closures.size(); ++k) {
    // Named after the outer input where it has a name (`w`, `fc1.weight`), for the printed form.
    const std::string& outer_name = closures[k]->name();
    Value* in = g->add_input(outer_name.empty() ? "lifted" + std::to_string(k) : outer_name, closures[k]->type());
    closure_inputs.push_back(in);
    auto it = std::find(sub.closures.begin(), sub.closures.end(), closures[k]);
    if (it != sub.closures.end()) value_map[src.input(sub.num_args + static_cast<int>(it - sub.closures.begin()))] = in;
  }
  for (int i = at; i < sub.num_args; ++i) copy_arg(i);
  KILN_CHECK(value_map.size() == static_cast<size_t>(src.num_inputs()))
      << "close_over: a closure of " << src.name() << " is missing from the union";
  for (Node* n : src.nodes()) {
    Graph::NewNode copy{n->op(), {}, n->attrs(), {}, {}, n->loc()};
    for (const Operand& o : n->operands()) copy.operands.push_back(o.is_value() ? Operand(value_map.at(o.value)) : o);
    for (Value* r : n->results()) copy.result_types.push_back(r->type());
    for (int i = 0; i < n->num_subgraphs(); ++i) copy.subgraphs.push_back(n->subgraph(i)->clone());
    Node* added = g->append(std::move(copy));
    for (int i = 0; i < n->num_results(); ++i) value_map[n->result(i)] = added->result(i);
  }
  std::vector<Value*> outputs;
  for (Value* o : src.outputs()) outputs.push_back(value_map.at(o));
  if (return_at) {
    KILN_CHECK(0 <= *return_at && static_cast<size_t>(*return_at) <= outputs.size()) << "close_over: output position";
    outputs.insert(outputs.begin() + *return_at, closure_inputs.begin(), closure_inputs.end());
  }
  g->set_outputs(std::move(outputs));
  return g;
}

}  // namespace kiln
