#include "autograd/graph_builder.h"

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
