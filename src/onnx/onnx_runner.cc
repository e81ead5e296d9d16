#include "onnx/onnx_runner.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "core/npy.h"
#include "onnx/verify.h"

namespace kiln::onnx {

namespace {

namespace fs = std::filesystem;

std::string default_python() {
  if (const char* p = std::getenv("KILN_PYTHON"); p && *p) return p;
  const std::string venv = std::string(KILN_SOURCE_DIR) + "/.venv/bin/python";
  if (access(venv.c_str(), X_OK) == 0) return venv;
  return resolve_program("python3");
}

std::string default_script() {
  if (const char* p = std::getenv("KILN_ONNX_RUNNER"); p && *p) return p;
  return std::string(KILN_SOURCE_DIR) + "/tools/onnx/run_onnx.py";
}

// "SIGFPE: Floating point exception"; "signal 70" for one glibc does not name.
std::string signal_text(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  const char* what = sigdescr_np(sig);
  if (!abbrev) return "signal " + std::to_string(sig);
  return std::string("SIG") + abbrev + (what ? std::string(": ") + what : "");
}

// The last `n` non-empty lines of `text`.
std::vector<std::string> last_lines(const std::string& text, size_t n) {
  std::vector<std::string> all;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos) all.push_back(line);
  if (all.size() > n) all.erase(all.begin(), all.end() - static_cast<std::ptrdiff_t>(n));
  return all;
}

}  // namespace

std::string RunnerFailure::how() const {
  if (signal) return "died of signal " + std::to_string(signal) + " (" + signal_text(signal) + ")";
  return "exited with status " + std::to_string(exit_code);
}

std::vector<std::string> RunnerFailure::output_tail(size_t lines) const { return last_lines(output, lines); }

std::optional<RunnerFailure> runner_failure(const ProcessResult& r) {
  if (r.ok()) return std::nullopt;
  RunnerFailure f{.exit_code = r.exit_code, .output = r.output};
  if (r.exit_code > 128) {
    f.signal = r.exit_code - 128;
    f.exit_code = 0;
  }
  return f;
}

Expected<OnnxRunner> OnnxRunner::create(const VerifyOptions& o) {
  OnnxRunner runner;
  runner.python_ = o.python.empty() ? default_python() : o.python;
  runner.script_ = o.runner.empty() ? default_script() : o.runner;
  runner.reference_ = o.backend == OnnxBackend::Reference;
  if (runner.python_.empty() || access(runner.python_.c_str(), X_OK) != 0)
    return make_error("verify needs Python to run the ONNX model, and none was found (looked for $KILN_PYTHON, ",
                      KILN_SOURCE_DIR, "/.venv/bin/python and python3 on PATH); run scripts/setup.sh");
  if (access(runner.script_.c_str(), R_OK) != 0)
    return make_error("verify: the ONNX runner script ", runner.script_, " is missing");
  return runner;
}

std::string OnnxRunner::backend_name() const { return reference_ ? "ONNX's reference evaluator" : "ONNX Runtime"; }

Expected<ProcessResult> OnnxRunner::run(const std::string& model, const std::string& input_paths,
                                        const std::string& out_dir) const {
  std::error_code ec;
  fs::remove_all(out_dir, ec);
  return run_process({python_, script_, "--model", model, "--inputs", input_paths, "--outputs", out_dir, "--backend",
                      reference_ ? "reference" : "ort"});
}

Expected<std::vector<Tensor>> OnnxRunner::read_outputs(const std::string& out_dir, const std::string& printed) {
  std::vector<Tensor> outs;
  while (true) {
    const std::string path = out_dir + "/out" + std::to_string(outs.size()) + ".npy";
    if (!fs::exists(path)) break;
    Expected<Tensor> t = read_npy(path);
    if (!t) return make_error("the ONNX runner's output ", outs.size(), " does not read back: ", t.error().message());
    outs.push_back(std::move(*t));
  }
  if (outs.empty()) {
    Diagnostic d = make_error("the ONNX runner exited with status 0 but wrote no outputs to ", out_dir);
    for (const std::string& line : last_lines(printed, 5)) d.add_context("| " + line);
    return d;
  }
  return outs;
}

}  // namespace kiln::onnx
