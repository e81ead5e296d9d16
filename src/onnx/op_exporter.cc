#include "onnx/op_exporter.h"

#include "onnx/export_util.h"

#include <array>

namespace kiln::onnx {

bool ExportContext::is_none(int i) const {
  if (i >= num_operands()) return true;
  const Operand& o = node.operand(i);
  return !o.is_value() && o.literal.is_none();
}

DType ExportContext::dtype(int i) const {
  const Operand& o = node.operand(i);
  return o.is_value() ? o.value->type().dtype : o.literal.natural_dtype();
}

std::string ExportContext::operand_as(int i, DType d) {
  const Operand& o = node.operand(i);
  if (o.is_value()) return b.cast(inputs[static_cast<size_t>(i)], o.value->type().dtype, d);
  return b.constant(Tensor::full({}, o.literal, d));
}

Expected<std::string> ExportContext::dim_value(const SymExpr& e) {
  if (e.is_constant()) return b.int_scalar(e.constant_value());
  // An input with this very dim, else the expression built from its symbols.
  if (std::optional<std::string> v = symbol_value(e.to_string())) return *v;
  if (e.as_symbol()) return make_error("the symbol ", e.to_string(), " is not a dim of any input");
  std::string sum = b.int_scalar(e.constant_term());
  for (const SymTerm& t : e.terms()) {
    std::string product = b.int_scalar(t.coeff);
    for (const SymFactor& f : t.factors) {
      std::string v;
      if (f.num) {
        KILN_ASSIGN_OR_RETURN(std::string num, dim_value(*f.num));
        v = int_floor_div(b, num, b.int_scalar(f.den));
      } else {
        KILN_ASSIGN_OR_RETURN(v, dim_value(SymExpr::symbol(f.symbol)));
      }
      product = b.op("Mul", {product, v});
    }
    sum = b.op("Add", {sum, product});
  }
  return sum;
}

Expected<std::string> ExportContext::shape_tensor(const Shape& shape) {
  if (shape.is_static()) return b.ints(shape.sizes());
  std::vector<std::string> parts;
  for (const Dim& d : shape.dims()) {
    if (d.is_static()) {
      parts.push_back(b.ints({d.value()}));
      continue;
    }
    Expected<std::string> v = dim_value(d.expr());
    if (!v)
      return make_error("the size ", d.to_string(), " of ", shape.to_string(),
                        " cannot be computed in the ONNX model: ", v.error().message());
    parts.push_back(b.op("Unsqueeze", {*v, b.ints({0})}));
  }
  return b.op("Concat", parts, {{"axis", int64_t{0}}});
}

std::vector<int64_t> wrap_axes(const std::vector<int64_t>& dims, int rank) {
  std::vector<int64_t> out;
  for (int64_t d : dims) out.push_back(d < 0 ? d + rank : d);
  return out;
}

const OpExporter* find_exporter(OpKind op) {
  static const std::vector<OpExporter> table = [] {
    std::vector<OpExporter> t(all_ops().size());
    for (auto family : {elementwise_exporters, reduction_exporters, linalg_exporters, layout_exporters, index_exporters,
                        nn_exporters, creation_exporters, control_flow_exporters})
      for (OpExporterEntry& e : family()) t[static_cast<size_t>(e.op)] = std::move(e.fn);
    return t;
  }();
  const OpExporter& fn = table[static_cast<size_t>(op)];
  return fn ? &fn : nullptr;
}

}  // namespace kiln::onnx
