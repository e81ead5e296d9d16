// GraphRunner: the seam between the training API and whatever executes a graph: the
// reference interpreter, or the CPU backend's compiled kernels (runtime/cpu/compile_graph.h).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"
#include "runtime/cpu/compile_graph.h"
#include "support/diagnostic.h"

namespace kiln {

// Interpreter: the reference interpreter (the oracle). Cpu: each graph compiled to C++ kernels
// (decomposed, fused, scheduled; matmuls through OpenBLAS), cached on disk, run natively.
enum class Backend { Interpreter, Cpu };

// Runs one fixed graph on concrete inputs (matching the graph's inputs in order).
class GraphRunner {
 public:
  virtual ~GraphRunner() = default;
  virtual Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const = 0;
};

// A runner for `graph` on `backend`. The runner keeps a reference: `graph` must outlive it.
// Backend::Cpu compiles a graph with static input shapes now; one with symbolic input dims
// (a dynamic batch) is compiled on each call with new input sizes, specialized to them, and
// kept. Errors: what the backend cannot compile (a symbolic dim no input determines, such as
// a carried value that grows in a while_loop; a missing C++ compiler), named at the node or
// command; for a specializing
// runner they come from run.
Expected<std::unique_ptr<GraphRunner>> make_graph_runner(const Graph& graph, Backend backend);

// A runner for a graph the CPU backend has already compiled (for callers that keep its phase
// times or program, as the compile report does).
std::unique_ptr<GraphRunner> make_cpu_graph_runner(CompiledGraph compiled);

}  // namespace kiln
