// kiln::value_and_grad(fn, example_inputs, options): the ergonomic form of GradFunction for a
// C++ function. It captures `fn` once on the example inputs (frontend/capture.h), compiles
// its gradients (train/grad_function.h) and returns a callable that runs them; errors throw
// kiln::Error, like the rest of the math API. The shapes are those of the examples: inputs of
// other shapes are rejected by the runner, never silently recaptured.
//
// The graph-level reference `value_and_grad(const Graph&, inputs, ...)` (autograd/
// value_and_grad.h) keeps its name: its first parameter is a Graph, which no function object
// converts to, and a Graph is not callable, so a call always picks exactly one of the two.
#pragma once

#include <string>
#include <vector>

#include "autograd/joint_graph.h"
#include "autograd/partition.h"
#include "frontend/capture.h"
#include "train/compile_options.h"
#include "train/grad_function.h"

namespace kiln {

struct ValueAndGradOptions {
  std::string name = "main";
  // Names of the user inputs (for `joint.wrt`); missing ones are x0, x1, ...
  std::vector<std::string> input_names = {};
  // Its parameters and buffers become lifted inputs, named by path (CaptureOptions::module).
  const nn::Module* module = nullptr;
  // Which inputs to differentiate; empty: every floating user input and parameter.
  JointOptions joint = {};
  // How the gradients are compiled and run: compiled for the CPU by default; joint passes,
  // partition and memory budget, the seed of random draws (the n-th forward draws with
  // (seed, n)) and the compile report (compile_options.h).
  CompileOptions compile = {};
};

class ValueAndGradFn {
 public:
  explicit ValueAndGradFn(GradFunction fn) : fn_(std::move(fn)) {}

  // See GradFunction: the same contracts, with kiln::Error for the failures.
  ForwardResult forward(const std::vector<Tensor>& inputs) const;
  std::vector<Tensor> backward(Saved&& saved, const std::vector<Tensor>& grad_outputs = {}) const;
  ValueAndGrad operator()(const std::vector<Tensor>& inputs, const std::vector<Tensor>& grad_outputs = {}) const;

  const GradFunction& grad_function() const { return fn_; }

 private:
  GradFunction fn_;
};

ValueAndGradFn value_and_grad(CaptureFn fn, std::vector<Tensor> example_inputs,
                              const ValueAndGradOptions& options = {});
// For functions with one output.
ValueAndGradFn value_and_grad(CaptureFn1 fn, std::vector<Tensor> example_inputs,
                              const ValueAndGradOptions& options = {});
// The same with only the compile options: `value_and_grad(f, xs, {.device = Device::cpu()})`.
ValueAndGradFn value_and_grad(CaptureFn fn, std::vector<Tensor> example_inputs, const CompileOptions& options);
ValueAndGradFn value_and_grad(CaptureFn1 fn, std::vector<Tensor> example_inputs, const CompileOptions& options);

}  // namespace kiln
