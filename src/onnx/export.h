// ONNX export (docs/ONNX.md): a kiln graph to an ONNX ModelProto, checked by ONNX's checker
// and shape inference. The export pipeline, as the reference's: functionalize (ONNX has no
// in-place ops; written inputs become extra outputs named "<input>.updated"), fold constants,
// remove dead code, then one exporter per node (onnx/op_exporter.h). Symbolic dims become
// dim_params named as the symbol ("B", "B*T"); inputs with role param or buffer become
// initializers when their values are given. Only src/onnx/ includes protobuf or ONNX headers.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"
#include "support/diagnostic.h"

namespace kiln::onnx {

// Opsets the exporter writes and tests. 17 is what Debian's ONNX library (1.12) checks; 18
// moves the axes of ReduceMax/Min/Mean/Prod/... from attributes to inputs.
inline constexpr int kMinOpset = 17;
inline constexpr int kMaxOpset = 18;

struct ExportOptions {
  int opset = 17;
  // Names of the model's inputs and outputs; empty: the graph's input names, and "output0",
  // "output1", ... A given list must name every one.
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
  // Parameters become initializers and are also listed as graph inputs (overridable at run
  // time), as the reference's keep_initializers_as_inputs.
  bool keep_initializers_as_inputs = false;
  // Eval export (default), as the reference exports a model switched to eval(): dropout is
  // the identity whatever its `train` attribute. Training export: dropout keeps its `train`
  // attribute, and a dropout that draws (0 < p < 1) is not exportable (its mask comes from
  // kiln's Philox stream, which ONNX cannot reproduce). batch_norm is exported as the graph
  // says either way (running or batch statistics).
  bool training = false;
  // dim 0 of every input with role `input` becomes the symbol "batch" (after which the
  // graph's types are re-inferred): a model exported from a graph traced at one batch size
  // runs at any. Nodes whose attributes fix that size make the export fail naming them.
  bool dynamic_batch = false;
  // Weights are written to external data (a file beside the model) when their total size
  // exceeds this many bytes (ONNX's protobuf limit is 2 GB).
  int64_t external_data_threshold = int64_t{2} << 30;
  // Run ONNX's checker and shape inference on the result and compare the inferred shapes
  // with kiln's.
  bool check = true;
};

// An exported model. The ModelProto is kept in memory; save() writes it (and its external
// data), serialize() gives its bytes.
class ExportedModel {
 public:
  ExportedModel();
  ~ExportedModel();
  ExportedModel(ExportedModel&&) noexcept;
  ExportedModel& operator=(ExportedModel&&) noexcept;

  const std::vector<std::string>& input_names() const { return input_names_; }
  const std::vector<std::string>& output_names() const { return output_names_; }
  // Which graph inputs are model inputs (the others are initializers), in order.
  const std::vector<int>& model_inputs() const { return model_inputs_; }
  // Graph outputs before the write-back outputs of inputs the graph writes.
  int num_user_outputs() const { return num_user_outputs_; }
  // The graph inputs the graph writes, in the order of their write-back outputs.
  const std::vector<int>& write_back_inputs() const { return write_back_inputs_; }
  int opset() const { return opset_; }
  // The ONNX name of each exported kiln value of the top graph, for intermediates.
  const std::vector<std::pair<const Value*, std::string>>& value_names() const { return value_names_; }

  // The graph after the export passes (functionalized, folded): what the model computes.
  const Graph& exported_graph() const { return *exported_graph_; }

  // Nodes of the model's main graph (subgraphs not counted).
  size_t num_nodes() const;

  // The serialized ModelProto (initializers inline).
  std::string serialize() const;
  // Writes `path`; when the weights exceed `external_data_threshold` bytes, they go to
  // `<path>.data` beside it (ONNX external data, relative location).
  Status save(const std::string& path, int64_t external_data_threshold = int64_t{2} << 30) const;

 private:
  friend class Exporter;
  struct Proto;  // the ModelProto (export.cc): no protobuf type in this header
  std::unique_ptr<Proto> proto_;
  std::vector<std::string> input_names_, output_names_;
  std::vector<int> model_inputs_;
  int num_user_outputs_ = 0;
  std::vector<int> write_back_inputs_;
  int opset_ = 17;
  std::vector<std::pair<const Value*, std::string>> value_names_;
  std::shared_ptr<Graph> exported_graph_;  // the graph after the export passes (value_names_ point into it)
};

// Exports `g`. `param_values` gives the values of the inputs with role param or buffer, in
// input order (Captured::lifted): they become initializers. Without them, every input is a
// model input. With `expose_intermediates`, every node result of the top graph is also a
// model output (after the others), for compare_intermediates.
Expected<ExportedModel> export_graph(const Graph& g, std::span<const Tensor> param_values = {},
                                     const ExportOptions& options = {}, bool expose_intermediates = false);

// Reads a .onnx file and runs ONNX's checker on it; the error names the file.
Status check_model_file(const std::string& path);

}  // namespace kiln::onnx
