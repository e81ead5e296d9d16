// The process that runs ONNX models for verify: tools/onnx/run_onnx.py under the project's
// Python, fed .npy files and writing the model's outputs as DIR/out0.npy, DIR/out1.npy, ...
// ONNX Runtime is native code: a model can kill the process (int64 INT64_MIN / -1 raises
// SIGFPE in its Div kernel), so every way the process can end is named here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "runtime/cpu/process.h"
#include "support/diagnostic.h"

namespace kiln::onnx {

struct VerifyOptions;

// How a run of the runner ended when it failed.
struct RunnerFailure {
  int exit_code = 0;  // its exit status (the script exits 1 when the model fails, 3 when a package is missing)
  int signal = 0;     // the signal that ended it, 0 when it exited
  std::string output;  // what it printed (stdout and stderr together)

  // "died of signal 8 (SIGFPE: Floating point exception)" or "exited with status 1".
  std::string how() const;
  // The last `lines` non-empty lines of its output.
  std::vector<std::string> output_tail(size_t lines) const;
};

// A ProcessResult as a RunnerFailure, nullopt when it succeeded. run_process reports a
// process ended by signal N as exit status 128 + N; the runner itself exits 0, 1 or 3 only,
// so a status above 128 is read as the signal.
std::optional<RunnerFailure> runner_failure(const ProcessResult& r);

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
