// GraphRunner: the seam between the training API and whatever executes a graph. Today only
// the reference interpreter runs graphs; the CPU backend will plug its compiled kernels in
// here (a new Backend enumerator and one more runner), with no change to its callers.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"
#include "support/diagnostic.h"

namespace kiln {

enum class Backend { Interpreter };

// Runs one fixed graph on concrete inputs (matching the graph's inputs in order).
class GraphRunner {
 public:
  virtual ~GraphRunner() = default;
  virtual Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const = 0;
};

// A runner for `graph` on `backend`. The runner keeps a reference: `graph` must outlive it.
std::unique_ptr<GraphRunner> make_graph_runner(const Graph& graph, Backend backend);

}  // namespace kiln
