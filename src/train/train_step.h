// compile_train_step: one training step of a module, compiled ahead of time. The loss
// function is captured once on an example batch with the module's parameters and buffers
// lifted to graph inputs (CaptureOptions::module); its gradients with respect to the
// parameters only (role `param`) are compiled and partitioned (train/grad_function.h).
//
// Each step reads the module's current parameter and buffer values: the captured lifted
// values are handles sharing the module's storage (a Module never replaces a registered
// tensor), so an optimizer that updates them in place between steps (train/optimizer.h) is
// seen by the next step. The step is compiled for the example batch's shapes and dtypes: a batch that differs
// is an error, never a silent recapture; compile another step for other shapes. The module
// must outlive the step. Errors throw kiln::Error (the ergonomic API).
#pragma once

#include <concepts>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "autograd/partition.h"
#include "core/tensor.h"
#include "frontend/nn/module.h"
#include "train/compile_options.h"
#include "train/grad_function.h"

namespace kiln {

// Returns a scalar floating loss for one batch.
using LossFn = std::function<Tensor(nn::Module&, std::span<const Tensor> batch)>;

struct TrainStepOptions {
  std::string name = "train_step";
  // Names of the batch tensors in the captured graph; missing ones are x0, x1, ...
  std::vector<std::string> batch_names = {};
  // How the step is compiled and run: compiled for the CPU by default; its joint passes,
  // partition, memory budget, seed of the random draws (dropout: step n draws with (seed, n))
  // and compile report directory (docs/REPORT.md: captured, joint, forward and backward graphs,
  // saved vs recomputed values and, when compiled, the kernels and planned memory).
  CompileOptions compile = {};
};

struct StepResult {
  Tensor loss;
  // One gradient per parameter the loss reads, named like the parameter (`fc1.weight`), in
  // the captured graph's input order. Parameters the loss does not read have none.
  std::vector<std::pair<std::string, Tensor>> grads;
};

class TrainStep {
 public:
  // Runs forward and backward on `batch` (same count, dtypes and sizes as the example).
  StepResult operator()(const std::vector<Tensor>& batch) const;

  // The captured loss graph (batch inputs first, then the lifted module state).
  const Graph& loss_graph() const { return *loss_graph_; }
  const GradFunction& grad_function() const { return fn_; }
  // Time spent compiling the step: capture, then GradFunction::phase_times().
  const PhaseTimes& phase_times() const { return times_; }

 private:
  friend TrainStep compile_train_step(nn::Module&, LossFn, std::vector<Tensor>, const TrainStepOptions&);
  TrainStep(std::shared_ptr<const Graph> loss_graph, GradFunction fn, std::vector<TensorType> batch_types,
            PhaseTimes times);

  std::shared_ptr<const Graph> loss_graph_;
  GradFunction fn_;
  std::vector<TensorType> batch_types_;
  std::vector<std::string> grad_names_;
  PhaseTimes times_;
};

// Fails when capture fails, when the loss is not one scalar floating tensor, when it reads
// no floating parameter of `module`, where the gradient compilation fails, or when the report
// directory cannot be written (the error names it).
TrainStep compile_train_step(nn::Module& module, LossFn loss_fn, std::vector<Tensor> example_batch,
                             const TrainStepOptions& options = {});
// The same with only the compile options: `compile_train_step(model, loss, batch, {.memory_budget = 0.5})`.
TrainStep compile_train_step(nn::Module& module, LossFn loss_fn, std::vector<Tensor> example_batch,
                             const CompileOptions& options);

// For a loss function written against the concrete module type:
// `compile_train_step(mlp, [](Mlp& m, std::span<const Tensor> b) { ... }, batch)`.
template <std::derived_from<nn::Module> M, typename F>
requires std::invocable<F&, M&, std::span<const Tensor>> &&(!std::same_as<M, nn::Module>)TrainStep
    compile_train_step(M& module, F loss_fn, std::vector<Tensor> example_batch, const TrainStepOptions& options = {}) {
  LossFn erased = [loss_fn = std::move(loss_fn)](nn::Module& m, std::span<const Tensor> batch) mutable {
    return loss_fn(static_cast<M&>(m), batch);
  };
  return compile_train_step(static_cast<nn::Module&>(module), std::move(erased), std::move(example_batch), options);
}
template <std::derived_from<nn::Module> M, typename F>
requires std::invocable<F&, M&, std::span<const Tensor>> &&(!std::same_as<M, nn::Module>)TrainStep
    compile_train_step(M& module, F loss_fn, std::vector<Tensor> example_batch, const CompileOptions& options) {
  return compile_train_step(module, std::move(loss_fn), std::move(example_batch), TrainStepOptions{.compile = options});
}

}  // namespace kiln
