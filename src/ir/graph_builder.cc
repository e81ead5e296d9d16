#include "ir/graph_builder.h"

#include <algorithm>
#include <unordered_map>

#include "ir/printer.h"
#include "ops/op_call.h"
#include "support/check.h"

namespace kiln {

std::vector<Value*> GraphBuilder::apply(OpKind op, std::vector<Operand> operands, AttrMap attrs) {
  std::vector<TypeOperand> types;
  for (const Operand& o : operands) {
    TypeOperand t;
    if (o.is_value()) t.type = o.value->type();
    t.literal = o.literal;
    types.push_back(std::move(t));
  }
  auto result_types = infer_types(TypeCall(op, attrs, types));
  KILN_CHECK(result_types.has_value()) << "GraphBuilder: " << op_info(op).name() << ": "
                                       << result_types.error().message();
  Node* n = graph_.insert_before(insert_before_, {op, std::move(operands), std::move(attrs), std::move(*result_types)});
  return n->results();
}

Value* GraphBuilder::apply1(OpKind op, std::vector<Operand> operands, AttrMap attrs) {
  std::vector<Value*> r = apply(op, std::move(operands), std::move(attrs));
  KILN_CHECK(r.size() == 1) << "GraphBuilder::apply1: " << op_info(op).name() << " gives " << r.size() << " results";
  return r[0];
}

std::vector<Value*> GraphBuilder::apply_higher_order(OpKind op, std::vector<Operand> operands, AttrMap attrs,
                                                     std::vector<std::unique_ptr<Graph>> subgraphs) {
  std::vector<TypeOperand> types;
  for (const Operand& o : operands) {
    KILN_CHECK(o.is_value()) << "GraphBuilder: " << op_info(op).name() << " takes tensor operands only";
    types.push_back({o.value->type(), {}});
  }
  std::vector<SubgraphSignature> signatures;
  for (const auto& g : subgraphs) signatures.push_back(graph_signature(*g));
  auto result_types = infer_types(TypeCall(op, attrs, types, signatures));
  KILN_CHECK(result_types.has_value()) << "GraphBuilder: " << op_info(op).name() << ": "
                                       << result_types.error().message();
  Node* n = graph_.insert_before(
      insert_before_, {op, std::move(operands), std::move(attrs), std::move(*result_types), std::move(subgraphs)});
  return n->results();
}

std::vector<Value*> GraphBuilder::inline_graph(const Graph& g, std::span<Value* const> inputs) {
  KILN_CHECK(static_cast<int>(inputs.size()) == g.num_inputs())
      << "GraphBuilder::inline_graph: @" << g.name() << " takes " << g.num_inputs() << " inputs, given "
      << inputs.size();
  std::unordered_map<const Value*, Value*> map;
  for (int i = 0; i < g.num_inputs(); ++i) {
    if (inputs[static_cast<size_t>(i)] == nullptr) {
      KILN_CHECK(!g.input(i)->has_uses() && std::ranges::find(g.outputs(), g.input(i)) == g.outputs().end())
          << "GraphBuilder::inline_graph: input " << i << " of @" << g.name() << " is read but not given";
      continue;
    }
    KILN_CHECK(inputs[static_cast<size_t>(i)]->type() == g.input(i)->type())
        << "GraphBuilder::inline_graph: input " << i << " of @" << g.name() << " is " << g.input(i)->type().to_string()
        << ", given " << inputs[static_cast<size_t>(i)]->type().to_string();
    map[g.input(i)] = inputs[static_cast<size_t>(i)];
  }
  for (const Node* n : g.nodes()) {
    Graph::NewNode copy{n->op(), {}, n->attrs(), {}, {}, n->loc()};
    for (const Operand& o : n->operands()) copy.operands.push_back(o.value ? Operand(map.at(o.value)) : o);
    for (const Value* r : n->results()) copy.result_types.push_back(r->type());
    for (int i = 0; i < n->num_subgraphs(); ++i) copy.subgraphs.push_back(n->subgraph(i)->clone());
    Node* made = graph_.insert_before(insert_before_, std::move(copy));
    for (int i = 0; i < n->num_results(); ++i) map[n->result(i)] = made->result(i);
  }
  std::vector<Value*> outputs;
  for (const Value* o : g.outputs()) outputs.push_back(map.at(o));
  return outputs;
}

Value* GraphBuilder::sum_to_shape(Value* v, const Shape& shape) {
  const Shape& from = v->type().shape;
  if (from == shape) return v;
  KILN_CHECK(from.rank() >= shape.rank()) << "sum_to_shape: " << from.to_string() << " to " << shape.to_string();
  const int lead = from.rank() - shape.rank();
  // Stretched dims are summed keeping the dim (size 1 stays), then added leading dims go.
  AttrValue::Ints stretched, leading;
  for (int i = 0; i < from.rank(); ++i) {
    if (i < lead)
      leading.push_back(i);
    else if (shape[i - lead] == 1 && !(from[i] == 1))
      stretched.push_back(i);
  }
  Value* out = v;
  if (!stretched.empty()) out = apply1(OpKind::Sum, {out}, {{"dim", stretched}, {"keepdim", true}});
  if (!leading.empty()) out = apply1(OpKind::Sum, {out}, {{"dim", leading}});
  KILN_CHECK(out->type().shape == shape) << "sum_to_shape: got " << out->type().shape.to_string() << " for "
                                         << shape.to_string();
  return out;
}

Value* GraphBuilder::cast(Value* v, DType dtype) {
  if (v->type().dtype == dtype) return v;
  return apply1(OpKind::ToCopy, {v}, {{"dtype", dtype}});
}

Value* GraphBuilder::full_like(Value* like, Scalar value) {
  return apply1(OpKind::FullLike, {like}, {{"fill_value", AttrValue::from_scalar(value)}});
}

Value* GraphBuilder::zeros_like(Value* v) { return apply1(OpKind::ZerosLike, {v}); }

}  // namespace kiln
