// The target-neutral pipeline for one graph, for any backend (backend.h): decompose the
// composite ops the backend does not keep whole (softmax, layer_norm, gelu, sdpa, ...) into
// core ops, fold products with a uniform operand into sums (passes/fold_uniform_matmuls.h),
// remove dead code and common subexpressions, lower to the loop IR (fusing elementwise
// producers, lower/lower.h), schedule within the backend's limits (lower/schedule.h), then let
// the backend emit, compile and load. Each phase is timed; the graph is verified after each
// pass when verify_each is set (debug builds). `run` has the interpreter's contract.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "backend/backend.h"
#include "core/tensor.h"
#include "ir/graph.h"
#include "lower/lower.h"
#include "support/diagnostic.h"

namespace kiln {

struct GraphCompileOptions {
  // Decompose every op that has a decomposition and that the backend does not keep whole, so
  // that composite ops become fusable loops instead of extern kernels.
  bool decompose = true;
  // Inline elementwise producers into their consumers' kernels (LowerOptions::fuse); false:
  // one kernel per node.
  bool fuse = true;
  // Merge kernels and fuse rows within the backend's limits; false: only numbers the kernels.
  bool schedule = true;
  // Verify the graph after each pass (an internal error names the pass).
#ifdef NDEBUG
  bool verify_each = false;
#else
  bool verify_each = true;
#endif
};

// Seconds spent in each phase of compile_graph.
struct GraphPhaseTimes {
  double passes = 0;      // copy, functionalize, decompose, DCE, CSE
  double lowering = 0;    // lowering to the loop IR (inlining elementwise producers)
  double scheduling = 0;  // the scheduler's kernel merging (lower/schedule.h)
  BackendTimes backend;   // emit, compile, load

  double total() const { return passes + lowering + scheduling + backend.emit + backend.compile + backend.load; }
};

class CompiledGraph {
 public:
  Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const { return executable_->run(inputs); }

  const Graph& graph() const { return *graph_; }  // after the passes, as lowered
  const Executable& executable() const { return *executable_; }
  const GraphPhaseTimes& times() const { return times_; }

 private:
  friend Expected<CompiledGraph> compile_graph(const Graph& g, const Backend& backend, const GraphCompileOptions& o);
  CompiledGraph(std::unique_ptr<Graph> g, std::unique_ptr<Executable> e, GraphPhaseTimes t)
      : graph_(std::move(g)), executable_(std::move(e)), times_(t) {}

  std::unique_ptr<Graph> graph_;
  std::unique_ptr<Executable> executable_;
  GraphPhaseTimes times_;
};

// Errors: what lowering refuses (symbolic shapes, a bad subgraph: named at the node), and what
// the backend's compile reports.
Expected<CompiledGraph> compile_graph(const Graph& g, const Backend& backend, const GraphCompileOptions& o = {});

// The passes and lowering of compile_graph only: the loop program it would hand the backend.
Expected<LoopProgram> lower_graph_for(const Graph& g, const Backend& backend, const GraphCompileOptions& o = {});

}  // namespace kiln
