// verify (docs/ONNX.md): exports a graph, runs the model in ONNX Runtime (or ONNX's reference
// evaluator) and the graph in kiln's reference interpreter on the same inputs, and compares
// the flattened outputs with the reference's semantics (torch.onnx.verification):
// |onnx - kiln| <= atol + rtol * |kiln| elementwise, NaN equal to NaN, shapes and dtypes
// equal unless told otherwise. Unlike the reference, acceptable_error_percentage = 0 means
// "no element may differ" (the reference treats 0 as unset), and with compare_intermediates
// every node result is also an output of the model, and the report names the first node whose
// result diverges.
//
// The model runs in a Python process (onnx/onnx_runner.h: tools/onnx/run_onnx.py with the
// project's .venv); inputs and outputs travel as .npy files in a temporary directory. When the
// process fails, the error says how; when it dies of a signal, also which node kills it
// (onnx/locate_crash.h) and the kiln node that node was exported from.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "frontend/capture.h"
#include "onnx/export.h"

namespace kiln::onnx {

// As the reference's OnnxBackend (ONNX_RUNTIME_CPU, REFERENCE).
enum class OnnxBackend { OnnxRuntimeCpu, Reference };

struct VerifyOptions {
  // kiln's outputs are a flat list of tensors already; flatten and ignore_none are accepted
  // for parity with the reference and change nothing.
  bool flatten = true;
  bool ignore_none = true;
  // false: both sides are broadcast to a common shape before comparing.
  bool check_shape = true;
  bool check_dtype = true;
  OnnxBackend backend = OnnxBackend::OnnxRuntimeCpu;
  double rtol = 1e-3;
  double atol = 1e-7;
  // Only these positions of the (flattened) model inputs are fed to the model (when the
  // model's unused inputs were pruned).
  std::optional<std::vector<int>> remained_onnx_input_idx;
  // A fraction in [0, 1] of elements allowed to mismatch per output; 0 allows none.
  std::optional<double> acceptable_error_percentage;
  // More input sets, each checked like the main one.
  std::vector<std::vector<Tensor>> additional_inputs;
  // Also compare every intermediate value of the exported graph, and name the first node
  // whose result diverges beyond tolerance.
  bool compare_intermediates = false;
  ExportOptions export_options;
  // Verify this .onnx file (exported by kiln from the same graph) instead of exporting.
  std::string model_path;
  // The Python interpreter and the runner script; empty: $KILN_PYTHON or the project's
  // .venv/bin/python (else python3 from PATH), and $KILN_ONNX_RUNNER or
  // tools/onnx/run_onnx.py in kiln's source tree.
  std::string python;
  std::string runner;
};

struct OutputReport {
  int input_set = 0;  // 0: the main inputs; i: additional_inputs[i - 1]
  int index = 0;
  std::string name;                  // the model's output name
  std::string kiln_type, onnx_type;  // "f32[2,3]"
  double max_abs_error = 0;
  double max_rel_error = 0;
  std::vector<int64_t> worst_index;  // of the largest absolute error
  double mismatch_fraction = 0;      // elements beyond tolerance / elements
  bool passed = true;
  std::string problem;  // why it failed ("" when it passed)
};

struct VerifyReport {
  std::string backend;  // "onnxruntime (CPUExecutionProvider)" or "onnx.reference"
  std::string model_path;
  std::vector<OutputReport> outputs;
  // compare_intermediates: each intermediate compared, and the first diverging node in IR
  // syntax ("" when none diverges).
  std::vector<OutputReport> intermediates;
  std::string first_divergent_node;
  bool passed = true;

  // One row per output: name, types, errors, mismatching fraction, pass/FAIL; then the
  // first diverging node when intermediates were compared.
  std::string to_table() const;
};

// Verifies `g` on `inputs` (one per graph input). `param_values` as export_graph's.
Expected<VerifyReport> verify(const Graph& g, std::span<const Tensor> inputs, const VerifyOptions& options = {},
                              std::span<const Tensor> param_values = {});
// A captured module: its lifted parameters become initializers; `inputs` are the user inputs.
Expected<VerifyReport> verify(const Captured& c, std::span<const Tensor> inputs, const VerifyOptions& options = {});

// The comparison alone, as verify applies it to one output (exposed for tests).
OutputReport compare_output(const Tensor& onnx, const Tensor& kiln, const VerifyOptions& options);

}  // namespace kiln::onnx
