// compile_train_step: capture with the module lifted, differentiate w.r.t. its parameters,
// and feed each step the module's current state.
#include "train/train_step.h"

#include <chrono>

#include "frontend/capture.h"
#include "support/error.h"

namespace kiln {

TrainStep::TrainStep(std::shared_ptr<const Graph> loss_graph, GradFunction fn, std::vector<TensorType> batch_types,
                     PhaseTimes times)
    : loss_graph_(std::move(loss_graph)), fn_(std::move(fn)), batch_types_(std::move(batch_types)), times_(times) {
  for (int index : fn_.joint().wrt_inputs) grad_names_.push_back(loss_graph_->input(index)->name());
}

TrainStep compile_train_step(nn::Module& module, LossFn loss_fn, std::vector<Tensor> example_batch,
                             const TrainStepOptions& options) {
  std::vector<TensorType> batch_types;
  for (const Tensor& t : example_batch) batch_types.push_back(t.type());
  CaptureFn1 fn = [&module, loss_fn = std::move(loss_fn)](std::span<const Tensor> batch) {
    return loss_fn(module, batch);
  };
  CaptureOptions capture_options{.name = options.name, .input_names = options.batch_names, .module = &module};
  const auto t0 = std::chrono::steady_clock::now();
  Captured captured = value_or_throw(capture(std::move(fn), std::move(example_batch), capture_options));
  std::shared_ptr<const Graph> g(std::move(captured.graph));
  PhaseTimes times;
  times.add(Phase::Capture, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());

  const TensorType loss_type = g->outputs()[0]->type();
  if (!is_floating(loss_type.dtype) || loss_type.shape.rank() != 0)
    throw Error(make_error("compile_train_step: the loss function must return a scalar floating tensor, not ",
                           loss_type.to_string()));
  std::vector<std::string> wrt;
  for (const Value* in : g->inputs())
    if (in->role() == InputRole::Param && is_floating(in->type().dtype)) wrt.push_back(in->name());
  if (wrt.empty())
    throw Error(make_error("compile_train_step: the loss of graph @", g->name(),
                           " reads no floating parameter of the module; there is nothing to train"));

  GradFunction grad = value_or_throw(compile_gradients(*g, std::move(captured.lifted), {.wrt = wrt}, options.compile,
                                                       "train step @" + g->name(), times));
  times.add(grad.phase_times());
  return TrainStep(std::move(g), std::move(grad), std::move(batch_types), times);
}

TrainStep compile_train_step(nn::Module& module, LossFn loss_fn, std::vector<Tensor> example_batch,
                             const CompileOptions& options) {
  return compile_train_step(module, std::move(loss_fn), std::move(example_batch), TrainStepOptions{.compile = options});
}

StepResult TrainStep::operator()(const std::vector<Tensor>& batch) const {
  if (batch.size() != batch_types_.size())
    throw Error(
        make_error("train step: compiled for a batch of ", batch_types_.size(), " tensors, given ", batch.size()));
  for (size_t i = 0; i < batch.size(); ++i) {
    if (!batch[i].defined() || batch[i].is_traced())
      throw Error(make_error("train step: batch tensor ", i, " is not a concrete tensor"));
    if (batch[i].type() != batch_types_[i])
      throw Error(make_error("train step: batch tensor ", i, " is ", batch[i].type().to_string(),
                             ", the step was compiled for ", batch_types_[i].to_string(),
                             " (a step is captured once; compile another step for other shapes)"));
  }
  ValueAndGrad r = value_or_throw(fn_(batch));
  StepResult out{std::move(r.values[0]), {}};
  for (size_t k = 0; k < r.grads.size(); ++k) out.grads.emplace_back(grad_names_[k], std::move(r.grads[k]));
  return out;
}

}  // namespace kiln
