// kiln::compile(fn, example_inputs, options): a C++ tensor function captured once on example
// inputs and compiled for inference (no gradients), torch.compile's job for a forward pass:
//
//   CompiledFunction f = compile([&](std::span<const Tensor> x) { return model.forward(x[0]); },
//                                {example}, {.device = Device::cpu()});
//   Tensor y = f({batch})[0];
//
// The captured graph runs the pattern and cleanup passes (CompileOptions::run_joint_passes, as
// Inductor runs its joint-graph passes on inference graphs), then the backend: compiled C++
// kernels for the CPU by default, or the reference interpreter (Execution::Interpreter). A module
// named in CaptureOptions::module has its parameters and buffers lifted: each call reads their
// current values, so in-place updates between calls are seen. Errors throw kiln::Error.
#pragma once

#include <memory>
#include <vector>

#include "core/tensor.h"
#include "frontend/capture.h"
#include "ir/graph.h"
#include "report/phase_times.h"
#include "train/compile_options.h"
#include "train/graph_runner.h"

namespace kiln {

class CompiledFunction {
 public:
  // Runs on inputs of the examples' count and dtypes, and their sizes but for the dims capture
  // made symbolic (CaptureOptions::dynamic: the compiled CPU backend specializes to each new
  // size and keeps it). Returns the function's outputs; inputs it writes in place are updated.
  std::vector<Tensor> operator()(const std::vector<Tensor>& inputs) const;

  // The graph that runs: as captured, after the passes that run before the backend.
  const Graph& graph() const { return *graph_; }
  // What compiling spent in each phase: capture, passes and the backend's phases.
  const PhaseTimes& phase_times() const { return times_; }

 private:
  friend CompiledFunction compile(CaptureFn, std::vector<Tensor>, const CompileOptions&, const CaptureOptions&);
  CompiledFunction(std::shared_ptr<const Graph> graph, std::vector<Tensor> lifted,
                   std::shared_ptr<const GraphRunner> runner, PhaseTimes times)
      : graph_(std::move(graph)), lifted_(std::move(lifted)), runner_(std::move(runner)), times_(times) {}

  std::shared_ptr<const Graph> graph_;  // the runner refers to it: shared, so copies stay valid
  std::vector<Tensor> lifted_;
  std::shared_ptr<const GraphRunner> runner_;
  PhaseTimes times_;
};

// Fails (throws) where capture, the passes or the backend fail (a device without a compiled
// backend, an op the interpreter rejects), or when the report directory cannot be written.
CompiledFunction compile(CaptureFn fn, std::vector<Tensor> example_inputs, const CompileOptions& options = {},
                         const CaptureOptions& capture = {});
// For functions with one output.
CompiledFunction compile(CaptureFn1 fn, std::vector<Tensor> example_inputs, const CompileOptions& options = {},
                         const CaptureOptions& capture = {});

}  // namespace kiln
