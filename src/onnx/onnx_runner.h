// The process that runs ONNX models for verify: tools/onnx/run_onnx.py under the project's
// Python, fed .npy files and writing the model's outputs as DIR/out0.npy, DIR/out1.npy, ...
// ONNX Runtime is native code: a model can kill the process (int64 INT64_MIN / -1 raises
// SIGFPE in its Div kernel): verify says how it ended (ProcessResult::how_it_ended) and which
// node kills it (locate_crash.h).
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"
#include "runtime/cpu/process.h"
#include "support/diagnostic.h"

namespace kiln::onnx {

struct VerifyOptions;

// The last `n` non-empty lines of `text` (what the runner printed), for messages.
std::vector<std::string> last_lines(const std::string& text, size_t n);

class OnnxRunner {
 public:
  // The interpreter and script of `o` (VerifyOptions::python and runner, else their
  // defaults); an error when either is missing.
  static Expected<OnnxRunner> create(const VerifyOptions& o);

  // "ONNX Runtime" or "ONNX's reference evaluator", for messages.
  std::string backend_name() const;

  // Runs `model` on the .npy files `input_paths` (comma-separated, in the model's input
  // order), writing its outputs to `out_dir`; an error only when the process cannot start.
  Expected<ProcessResult> run(const std::string& model, const std::string& input_paths,
                              const std::string& out_dir) const;

  // The outputs a successful run wrote to `out_dir`, in order: an error when it wrote none
  // or one does not read back as .npy (`printed` is what the run printed, quoted in the error).
  static Expected<std::vector<Tensor>> read_outputs(const std::string& out_dir, const std::string& printed);

 private:
  std::string python_, script_;
  bool reference_ = false;
};

}  // namespace kiln::onnx
