// The CPU backend's pipeline for one graph: decompose composite ops (softmax, layer_norm,
// gelu, linear, sdpa, ...) into core ops, fold products with a uniform operand into sums
// (passes/fold_uniform_matmuls.h), remove dead code and common subexpressions, lower
// to the loop IR (fusing elementwise producers, lower/lower.h), schedule (lower/schedule.h),
// emit C++, compile through the kernel cache and load (compiled_program.h). Each phase is
// timed; `run` has the interpreter's contract (inputs in graph order, one tensor per output).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"
#include "lower/lower.h"
#include "runtime/cpu/compiled_program.h"
#include "support/diagnostic.h"

namespace kiln {

struct CpuGraphOptions {
  // Decompose every op that has a decomposition before lowering (passes/decompose.h), so
  // that composite ops become fusable loops instead of extern kernels.
  bool decompose = true;
  // Keep linear (x @ w.T + b) whole, as one extern kernel: the matmul library adds the bias as
  // it writes the product (oneDNN's bias argument), where the decomposition's add would read
  // the product back in another pass. false: decomposed with the rest.
  bool extern_linear = true;
  // Keep var and std whole, so that lowering computes them in one Welford pass over the data,
  // with a mean of the same values beside them (the normalizations' statistics: their
  // decompositions give mean and var) from the same accumulator (lower/lower_welford.cc).
  // false: they decompose into a mean and a sum of squared deviations, two passes.
  bool welford = true;
  LowerOptions lower = {};
  CpuCompileOptions compile = {};
};

// Seconds spent in each phase of compile_graph_cpu.
struct CpuPhaseTimes {
  double passes = 0;    // copy, decompose, DCE, CSE
  double lowering = 0;    // lowering to the loop IR (inlining elementwise producers)
  double scheduling = 0;  // the scheduler's kernel merging (lower/schedule.h)
  double emit = 0;      // C++ text of every chunk
  double compile = 0;   // the system compiler (0 on cache hits), finding it and the cache entries included
  double load = 0;      // dlopen and dlsym

  double total() const { return passes + lowering + scheduling + emit + compile + load; }
};

class CompiledGraph {
 public:
  Expected<std::vector<Tensor>> run(std::span<const Tensor> inputs) const { return program_.run(inputs); }

  const Graph& graph() const { return *graph_; }  // after the passes, as lowered
  const CompiledProgram& program() const { return program_; }
  const CpuPhaseTimes& times() const { return times_; }

 private:
  friend Expected<CompiledGraph> compile_graph_cpu(const Graph& g, const CpuGraphOptions& o);
  CompiledGraph(std::unique_ptr<Graph> g, CompiledProgram p, CpuPhaseTimes t)
      : graph_(std::move(g)), program_(std::move(p)), times_(t) {}

  std::unique_ptr<Graph> graph_;
  CompiledProgram program_;
  CpuPhaseTimes times_;
};

// Errors: what lowering refuses (symbolic shapes, a bad subgraph: named at the node), and what
// compiling reports (compiled_program.h).
Expected<CompiledGraph> compile_graph_cpu(const Graph& g, const CpuGraphOptions& o = {});

// The passes and lowering of compile_graph_cpu only: the loop program it would compile.
Expected<LoopProgram> lower_graph_cpu(const Graph& g, const CpuGraphOptions& o = {});

}  // namespace kiln
