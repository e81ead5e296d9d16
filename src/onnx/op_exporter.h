// The contract between the export driver (export.cc) and the per-op exporters
// (export_<family>.cc): for one kiln node, an exporter appends ONNX nodes through the
// OnnxBuilder and returns the ONNX names of the node's results, in order. It never sees
// protobuf types. An op it cannot express (an attribute value, a dtype, a symbolic size it
// cannot compute) is a make_error naming the reason; the driver adds the node in IR syntax,
// the op and the opset.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "onnx/onnx_builder.h"
#include "ops/op_call.h"

namespace kiln::onnx {

// Exports the nodes of a kiln subgraph (cond branch, loop body, scan combine function) into
// the builder `into` (the enclosing graph, or a new ONNX subgraph), with the subgraph's inputs
// bound to the ONNX names `inputs`; returns the ONNX names of its outputs.
using InlineGraph = std::function<Expected<std::vector<std::string>>(const Graph& g, OnnxBuilder& into,
                                                                     const std::vector<std::string>& inputs)>;

struct ExportContext {
  OnnxBuilder& b;
  const Node& node;
  OpCallBase call;                  // attributes, explicit or schema default
  std::vector<std::string> inputs;  // ONNX names of the value operands; "" for literals and none
  int opset = 17;
  bool training = false;
  InlineGraph inline_graph;
  // The ONNX name of a symbolic dim's value as a 0-d int64 (Shape + Gather of an input with
  // that dim, bare symbol or expression); nullopt when no graph input has it.
  std::function<std::optional<std::string>(const std::string& symbol)> symbol_value;

  int num_operands() const { return node.num_operands(); }
  bool is_none(int i) const;  // absent, or the literal `none`
  bool is_value(int i) const { return i < num_operands() && node.operand(i).is_value(); }
  const TensorType& type(int i) const { return node.operand(i).value->type(); }
  DType dtype(int i) const;  // a value's dtype, or a literal's natural dtype
  const TensorType& result_type(int i = 0) const { return node.result(i)->type(); }
  int rank(int i) const { return type(i).shape.rank(); }

  // Operand i (a value or an inline literal) as an ONNX value of dtype `d`, cast if needed.
  std::string operand_as(int i, DType d);
  // Operand i as it is (a literal becomes a 0-d constant of its natural dtype).
  std::string operand(int i) { return operand_as(i, dtype(i)); }
  // Operand i read as dtype `via` first, as a kernel that casts it to `via` reads it (a float
  // read as bool is x != 0, as an integer truncated and wrapped), then cast to d.
  std::string operand_via(int i, DType via, DType d) { return b.cast(operand_as(i, via), via, d); }

  // A 1-d int64 shape tensor for `shape`: a constant when static, else built from the
  // symbols' values (Shape/Gather of the inputs that carry them, then Mul/Add/floor-Div).
  Expected<std::string> shape_tensor(const Shape& shape);
  // A dim's value as a 0-d int64: an input's dim when one is this expression, else computed
  // from its symbols; an error names a symbol no input carries.
  Expected<std::string> dim_value(const SymExpr& e);
};

using OpExporter = std::function<Expected<std::vector<std::string>>(ExportContext&)>;

struct OpExporterEntry {
  OpKind op;
  OpExporter fn;
};

// The exporters of each family of ops, each in its own file.
std::vector<OpExporterEntry> elementwise_exporters();   // export_elementwise.cc
std::vector<OpExporterEntry> reduction_exporters();     // export_reduce.cc
std::vector<OpExporterEntry> linalg_exporters();        // export_linalg.cc
std::vector<OpExporterEntry> layout_exporters();        // export_layout.cc (views, cat, pad, ...)
std::vector<OpExporterEntry> index_exporters();         // export_index.cc (gather, scatter, index, ...)
std::vector<OpExporterEntry> nn_exporters();            // export_nn.cc (norms, losses, conv, pool, attention)
std::vector<OpExporterEntry> creation_exporters();      // export_creation.cc (full, arange, random)
std::vector<OpExporterEntry> control_flow_exporters();  // export_control_flow.cc (cond, while_loop, scan, map)

// The exporter of `op`, or null when kiln has none.
const OpExporter* find_exporter(OpKind op);

// Dims in [0, rank) from possibly negative ones (kiln's rules already checked them).
std::vector<int64_t> wrap_axes(const std::vector<int64_t>& dims, int rank);

}  // namespace kiln::onnx
