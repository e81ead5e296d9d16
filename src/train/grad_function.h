// GradFunction: the gradients of a forward graph, compiled ahead of time and split in two.
// It builds the joint graph (autograd/joint_graph.h), runs joint_graph_passes on it
// (patterns/joint_graph_passes.h), partitions it (autograd/partition.h)
// and runs the forward graph and the backward graph separately, so a caller can hold several
// forwards before their backwards, as a training loop with gradient accumulation or pipeline
// stages does. The unpartitioned reference is autograd/value_and_grad.h; this is the
// graph-level API (errors come back as Expected); train/value_and_grad_fn.h wraps it for C++
// functions.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "autograd/joint_graph.h"
#include "autograd/partition.h"
#include "autograd/value_and_grad.h"
#include "core/tensor.h"
#include "ir/graph.h"
#include "patterns/joint_graph_passes.h"
#include "report/compile_report.h"
#include "report/phase_times.h"
#include "support/diagnostic.h"
#include "train/graph_runner.h"

namespace kiln {

struct GradOptions {
  JointOptions joint = {};
  // joint_graph_passes on the joint graph before partitioning (each step can be turned off
  // in joint_passes, all of them with run_joint_passes = false).
  bool run_joint_passes = true;
  JointGraphPassOptions joint_passes = {};
  // The partitioner's own default (min-cut) unless the caller picks another kind.
  PartitionOptions partition = {};
  // Where the forward and backward graphs run: compiled for the CPU unless told otherwise
  // (RunnerOptions::backend = Execution::Interpreter runs the reference interpreter).
  RunnerOptions runner = {};
  // The generator state's seed when joint_graph adds one (JointGraph::rng_state_added): the
  // n-th forward of this function draws with (seed, n), so every step draws fresh numbers,
  // the same ones in every run, and its backward replays them.
  uint64_t seed = 0;
  // When set, create() adds its stages to this report (not owned; docs/REPORT.md): the joint
  // graph before and after the joint passes, the forward and backward graphs, the partition's
  // saved and recomputed values and, when compiled, both compiled programs. Phase times are
  // in GradFunction::phase_times() either way.
  CompileReport* report = nullptr;
};

struct CompiledGrad;  // the joint graph, its partition and their runners (grad_function.cc)

// What one forward saved for its backward: exactly the forward graph's saved outputs.
// Move-only, consumed by the backward it is passed to; a moved-from or consumed Saved is
// empty, and passing it to a backward again is an error. Saved values may share storage with
// the forward's inputs (a parameter the backward reads is saved as itself), so inputs must
// not be modified in place between a forward and its backward.
class Saved {
 public:
  Saved() = default;
  Saved(Saved&&) noexcept = default;
  Saved& operator=(Saved&&) noexcept = default;
  Saved(const Saved&) = delete;
  Saved& operator=(const Saved&) = delete;

  bool empty() const { return owner_ == nullptr; }
  size_t count() const { return values_.size(); }
  // Bytes of the saved tensors; for static shapes, the partition's saved_bytes.
  int64_t bytes() const;

 private:
  friend class GradFunction;
  std::shared_ptr<const CompiledGrad> owner_;
  std::vector<Tensor> values_;
  // Sizes of the differentiable outputs, for the default output gradients (ones).
  std::vector<std::vector<int64_t>> output_sizes_;
};

struct ForwardResult {
  std::vector<Tensor> outputs;  // the forward graph's outputs (inputs it mutates are updated in place)
  Saved saved;
};

class GradFunction {
 public:
  // `forward`'s inputs are the user inputs followed by `lifted.size()` lifted inputs whose
  // values `lifted` holds (Captured::lifted); every call appends them. Fails where
  // joint_graph or partition fail, or when `forward` has fewer inputs than `lifted`.
  static Expected<GradFunction> create(const Graph& forward, std::vector<Tensor> lifted = {},
                                       const GradOptions& options = {});

  // Runs the forward graph on the user inputs: the outputs and what the backward needs.
  Expected<ForwardResult> forward(std::span<const Tensor> inputs) const;
  // Runs the backward graph: one gradient per differentiated input (JointGraph::wrt_inputs
  // order). `grad_outputs` holds one gradient per differentiable output (those with a
  // JointGraph::tangent_input), each of that output's dtype and sizes; empty: ones (the usual
  // case, a scalar loss). Consumes `saved` unless `grad_outputs` are rejected. Fails for a
  // Saved that is empty (already used) or comes from another GradFunction.
  Expected<std::vector<Tensor>> backward(Saved&& saved, std::span<const Tensor> grad_outputs = {}) const;
  // forward then backward.
  Expected<ValueAndGrad> operator()(std::span<const Tensor> inputs, std::span<const Tensor> grad_outputs = {}) const;

  int num_user_inputs() const;
  // The offset the next forward draws with (the number of forwards so far).
  int64_t rng_offset() const;
  // The number of forward outputs that take an output gradient.
  int num_differentiable_outputs() const;
  const JointGraph& joint() const;
  const Partition& partition() const;
  // What create() spent in each phase: autodiff, passes, partition and, when compiled, the
  // backend's phases for both graphs together.
  const PhaseTimes& phase_times() const;

 private:
  explicit GradFunction(std::shared_ptr<const CompiledGrad> compiled) : compiled_(std::move(compiled)) {}
  std::shared_ptr<const CompiledGrad> compiled_;
};

}  // namespace kiln
