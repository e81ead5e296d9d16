// GraphRunner: the seam between the training API and whatever executes a graph: the
// reference interpreter, or the CPU backend's compiled kernels (runtime/cpu/compile_graph.h).
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
#include "runtime/cpu/compile_graph.h"
#include "support/diagnostic.h"

namespace kiln {

// Interpreter: the reference interpreter (the oracle), on any device's tensors. Compiled: each
// graph compiled for the device: on the CPU, C++ kernels (decomposed, fused, scheduled; matmuls
// through oneDNN or OpenBLAS), cached on disk, run natively.
enum class Backend { Interpreter, Compiled };

// Where and how a graph runs. A value, passed in (CompileOptions holds one per program).
struct RunnerOptions {
  Backend backend = Backend::Compiled;
  // The device a compiled graph runs on. Only the CPU has a compiled backend today; a CUDA
  // device is an error that says so (the interpreter runs anywhere).
  Device device = Device::cpu();
  // The CPU backend's passes, lowering and C++ compilation (runtime/cpu/compile_graph.h): its
  // compiler, kernel cache directory and matmul library are chosen here.
  CpuGraphOptions cpu = {};
};

// Runs one fixed graph on concrete inputs (matching the graph's inputs in order).
class GraphRunner {
 public:
  virtual ~GraphRunner() = default;
  virtual Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const = 0;
};

// A runner for `graph` as `options` say. The runner keeps a reference: `graph` must outlive it.
// A compiled CPU runner compiles a graph with static input shapes now; one with symbolic input
// dims (a dynamic batch) is compiled on each call with new input sizes, specialized to them,
// and kept. Errors: a device without a compiled backend (CUDA), and what the backend cannot
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

// Ok when `options` name a backend this build has: the interpreter, or compiled for the CPU.
// Otherwise an error naming the device and what to use instead.
Status check_runner_options(const RunnerOptions& options);

// A runner for a graph the CPU backend has already compiled (for callers that keep its phase
// times or program, as the compile report does).
std::unique_ptr<GraphRunner> make_cpu_graph_runner(CompiledGraph compiled);

}  // namespace kiln
