// Builds an ONNX GraphProto node by node, naming values and interning constants. The only
// code besides onnx_builder.cc that sees protobuf types is the exporter's driver
// (export.cc); the per-op exporters (export_*.cc) build through this class alone.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "core/dtype.h"
#include "core/tensor.h"
#include "core/tensor_type.h"

namespace onnx {
class GraphProto;
class TensorProto;
}  // namespace onnx

namespace kiln::onnx {

// An ONNX node attribute: int, float, string, ints, floats, a tensor (for Constant and
// ConstantOfShape) or a subgraph (If, Loop, Scan).
struct OnnxAttr {
  std::string name;
  std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<float>, Tensor,
               std::shared_ptr<::onnx::GraphProto>>
      value;
};

// ONNX's TensorProto.DataType code of a kiln dtype (FLOAT=1, INT64=7, BOOL=9, BFLOAT16=16, ...).
int onnx_dtype(DType d);

// A TensorProto holding t's elements, row-major, as raw data (bool as bytes, f16/bf16 as
// their 16-bit patterns).
void fill_tensor_proto(const Tensor& t, const std::string& name, ::onnx::TensorProto& out);

// A new, empty GraphProto for a subgraph (If branches, Loop and Scan bodies).
std::shared_ptr<::onnx::GraphProto> new_graph_proto();

class OnnxBuilder {
 public:
  // `graph` is filled in place. A builder for a subgraph (If, Loop, Scan bodies) takes its
  // parent, whose name counter it shares: every value name is unique in the model.
  explicit OnnxBuilder(::onnx::GraphProto& graph, OnnxBuilder* parent = nullptr);

  ::onnx::GraphProto& graph() { return *graph_; }

  // A fresh value name ("n12_add"), unique within the model.
  std::string fresh(const std::string& hint);

  // Appends `op_type(inputs) -> num_outputs` results; returns their names. An empty input
  // name is an omitted optional input.
  std::vector<std::string> node(const std::string& op_type, const std::vector<std::string>& inputs,
                                const std::vector<OnnxAttr>& attrs = {}, int num_outputs = 1,
                                const std::string& domain = "");
  // One-result shorthand.
  std::string op(const std::string& op_type, const std::vector<std::string>& inputs,
                 const std::vector<OnnxAttr>& attrs = {});

  // Constants, interned: the same value asked twice gives the same name. Up to 64 elements
  // they are Constant nodes, larger ones initializers of this graph.
  std::string constant(const Tensor& t);
  std::string scalar(double v, DType d);            // a 0-d tensor of dtype d
  std::string ints(const std::vector<int64_t>& v);  // a 1-d int64 tensor
  std::string int_scalar(int64_t v);                // a 0-d int64 tensor

  // x cast to `to` (no node when `from == to`).
  std::string cast(const std::string& x, DType from, DType to);

  // The graph's signature: an input or output named `name` of type t (symbolic dims as
  // dim_params named as the dim), or of dtype d and unknown shape of rank `rank`
  // (rank < 0: unknown rank).
  void add_input(const std::string& name, const TensorType& t);
  void add_input(const std::string& name, DType d, int rank);
  void add_output(const std::string& name, const TensorType& t);
  void set_name(const std::string& name);

 private:
  ::onnx::GraphProto* graph_;
  std::shared_ptr<int64_t> counter_;
  std::map<std::string, std::string> interned_;
};

}  // namespace kiln::onnx
