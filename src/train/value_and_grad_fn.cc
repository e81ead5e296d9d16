// value_and_grad for C++ functions: capture, then GradFunction, with errors thrown.
#include "train/value_and_grad_fn.h"

#include <chrono>

#include "support/error.h"

namespace kiln {

ForwardResult ValueAndGradFn::forward(const std::vector<Tensor>& inputs) const {
  return value_or_throw(fn_.forward(inputs));
}

std::vector<Tensor> ValueAndGradFn::backward(Saved&& saved, const std::vector<Tensor>& grad_outputs) const {
  return value_or_throw(fn_.backward(std::move(saved), grad_outputs));
}

ValueAndGrad ValueAndGradFn::operator()(const std::vector<Tensor>& inputs,
                                        const std::vector<Tensor>& grad_outputs) const {
  return value_or_throw(fn_(inputs, grad_outputs));
}

ValueAndGradFn value_and_grad(CaptureFn fn, std::vector<Tensor> example_inputs, const ValueAndGradOptions& options) {
  CaptureOptions capture_options{.name = options.name, .input_names = options.input_names, .module = options.module};
  const auto t0 = std::chrono::steady_clock::now();
  Captured captured = value_or_throw(capture(std::move(fn), std::move(example_inputs), capture_options));
  PhaseTimes times;
  times.add(Phase::Capture, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return ValueAndGradFn(
      value_or_throw(compile_gradients(*captured.graph, std::move(captured.lifted), options.joint, options.compile,
                                       "value_and_grad @" + captured.graph->name(), times)));
}

ValueAndGradFn value_and_grad(CaptureFn1 fn, std::vector<Tensor> example_inputs, const ValueAndGradOptions& options) {
  CaptureFn many = [fn = std::move(fn)](std::span<const Tensor> in) { return std::vector<Tensor>{fn(in)}; };
  return value_and_grad(std::move(many), std::move(example_inputs), options);
}

ValueAndGradFn value_and_grad(CaptureFn fn, std::vector<Tensor> example_inputs, const CompileOptions& options) {
  return value_and_grad(std::move(fn), std::move(example_inputs), ValueAndGradOptions{.compile = options});
}

ValueAndGradFn value_and_grad(CaptureFn1 fn, std::vector<Tensor> example_inputs, const CompileOptions& options) {
  return value_and_grad(std::move(fn), std::move(example_inputs), ValueAndGradOptions{.compile = options});
}

}  // namespace kiln
