// The mixture-of-experts converters (convert_moe.h).
#include "import/convert_moe.h"

#include <vector>

#include "ir/graph_builder.h"

namespace kiln::pt2 {
namespace {

constexpr std::string_view kGroupedMm = "transformers.grouped_mm_fallback.default";

std::string_view strip_prefix(std::string_view target) {
  constexpr std::string_view kPrefix = "torch.ops.";
  if (target.substr(0, kPrefix.size()) == kPrefix) target.remove_prefix(kPrefix.size());
  return target;
}

// The value bound to the tensor argument `name` of n.
Expected<Value*> tensor_input(const Node& n, std::string_view name, const std::map<std::string, Value*>& values) {
  for (const NamedArgument& in : n.inputs) {
    if (in.name != name) continue;
    if (in.arg.kind != Argument::Kind::Tensor || in.arg.names.empty() || !in.arg.names[0])
      return make_error("argument '", name, "' is not a tensor");
    auto it = values.find(*in.arg.names[0]);
    if (it == values.end())
      return make_error("uses the value '", *in.arg.names[0], "', which no earlier node or input defines");
    return it->second;
  }
  return make_error("argument '", name, "' is missing");
}

}  // namespace

bool has_moe_converter(std::string_view target) {
  target = strip_prefix(target);
  return target == kGroupedMm;
}

Status convert_moe_node(Graph& g, const Node& n, std::map<std::string, Value*>& values, const SourceLoc& loc) {
  KILN_ASSIGN_OR_RETURN(Value * input, tensor_input(n, "input", values));
  KILN_ASSIGN_OR_RETURN(Value * weight, tensor_input(n, "weight", values));
  KILN_ASSIGN_OR_RETURN(Value * offs, tensor_input(n, "offs", values));
  if (n.outputs.size() != 1 || n.outputs[0].kind != Argument::Kind::Tensor || !n.outputs[0].names[0])
    return make_error("it does not have one tensor result");
  const Shape &x = input->type().shape, &w = weight->type().shape, &o = offs->type().shape;
  if (x.rank() != 2 || w.rank() != 3 || o.rank() != 1 || !x.is_static() || !w.is_static() || !o.is_static())
    return make_error("kiln imports grouped_mm_fallback of static input [S, K], weight [E, K, N] and offs [E] only");
  if (x[1].value() != w[1].value() || o[0].value() != w[0].value())
    return make_error("input ", x.to_string(), ", weight ", w.to_string(), " and offs ", o.to_string(), " do not fit");
  if (is_floating(offs->type().dtype) || input->type().dtype != weight->type().dtype)
    return make_error("offs must be integers and input and weight of one dtype");
  const int64_t rows = x[0].value(), experts = w[0].value();
  GraphBuilder b(g);
  const size_t first = g.nodes().size();
  Value* row = b.apply1(OpKind::Arange, {}, {{"start", int64_t{0}}, {"end", rows}, {"dtype", DType::I64}});
  row = b.apply1(OpKind::Unsqueeze, {row}, {{"dim", int64_t{1}}});
  Value* group = b.apply1(OpKind::Sum, {b.apply1(OpKind::Ge, {row, offs})}, {{"dim", AttrValue::Ints{1}}});
  Value* in_group = b.apply1(OpKind::Lt, {group, Scalar(experts)});
  group = b.apply1(OpKind::Clamp, {group}, {{"max", AttrValue::from_scalar(Scalar(experts - 1))}});
  Value* matrices = b.apply1(OpKind::Index, {weight, group});
  Value* product = b.apply1(OpKind::Bmm, {b.apply1(OpKind::Unsqueeze, {input}, {{"dim", int64_t{1}}}), matrices});
  product = b.apply1(OpKind::Squeeze, {product}, {{"dim", AttrValue::Ints{1}}});
  Value* result =
      b.apply1(OpKind::Where, {b.apply1(OpKind::Unsqueeze, {in_group}, {{"dim", int64_t{1}}}), product, Scalar(0.0)});
  const std::vector<kiln::Node*> made = g.nodes();
  for (size_t i = first; i < made.size(); ++i) made[i]->set_loc(loc);
  values[*n.outputs[0].names[0]] = result;
  return Status::ok();
}

}  // namespace kiln::pt2
