// GraphRunner: the seam between the training API and whatever executes a graph: the
// reference interpreter, or the kernels of the device's backend (backend/compile_graph.h,
// runtime/backend_registry.h).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/tensor.h"
#include "ir/graph.h"
#include "report/compile_report.h"
#include "report/phase_times.h"
#include "runtime/backend_registry.h"
#include "support/diagnostic.h"

namespace kiln {

// Interpreter: the reference interpreter (the oracle), on any device's tensors. Compiled: each
// graph compiled by the device's backend: on the CPU, C++ kernels (decomposed, fused,
// scheduled; matmuls through oneDNN or OpenBLAS), cached on disk, run natively.
enum class Execution { Interpreter, Compiled };

// Where and how a graph runs. A value, passed in (CompileOptions holds one per program).
struct RunnerOptions {
  Execution execution = Execution::Compiled;
  // The device a compiled graph runs on, which picks its backend (backend_for); a device with
  // no backend in this build is an error that says so (the interpreter runs anywhere).
  Device device = Device::cpu();
  // Each backend's own knobs: the CPU's compiler, kernel cache directory and matmul library.
  BackendOptions backends = {};
};

// Runs one fixed graph on concrete inputs (matching the graph's inputs in order).
class GraphRunner {
 public:
  virtual ~GraphRunner() = default;
  virtual Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const = 0;
};

// A runner for `graph` as `options` say. The runner keeps a reference: `graph` must outlive it.
// A compiled runner compiles a graph with static input shapes now; one with symbolic input
// dims (a dynamic batch) is compiled on each call with new input sizes, specialized to them,
// and kept. Errors: a device without a backend (backend_for), and what the backend cannot
// compile (a symbolic dim no input determines, such as a carried value that grows in a
// while_loop; a missing C++ compiler), named at the node or command; for a specializing
// runner they come from run.
Expected<std::unique_ptr<GraphRunner>> make_graph_runner(const Graph& graph, const RunnerOptions& options = {});

// make_graph_runner for a program being compiled: a graph compiled now (static shapes) adds
// its backend phase times to `times` and, when `report` is set, the graph after the backend's
// passes and the compiled program to the report, both titled `label`.
Expected<std::unique_ptr<GraphRunner>> make_graph_runner_reported(const Graph& graph, const RunnerOptions& options,
                                                                  const std::string& label, PhaseTimes& times,
                                                                  CompileReport* report);

}  // namespace kiln
