// value_and_grad: the joint graph run on the interpreter.
#include "autograd/value_and_grad.h"

#include "interp/interpreter.h"

namespace kiln {

namespace {

// Ones shaped like each differentiable output. Shapes come from the graph when static;
// otherwise the forward graph runs once to learn them.
Expected<std::vector<Tensor>> default_output_grads(const Graph& forward, std::span<const Tensor> inputs) {
  const std::vector<Value*>& outputs = forward.outputs();
  bool all_static = true;
  for (const Value* out : outputs) all_static = all_static && out->type().shape.is_static();
  std::vector<Tensor> values;
  if (!all_static) {
    Expected<std::vector<Tensor>> run = interpret(forward, inputs);
    if (!run) return run.error();
    values = std::move(*run);
  }
  std::vector<Tensor> grads;
  for (size_t k = 0; k < outputs.size(); ++k) {
    const TensorType& type = outputs[k]->type();
    if (!is_floating(type.dtype)) continue;
    std::vector<int64_t> sizes = all_static ? type.shape.sizes() : values[k].sizes();
    grads.push_back(Tensor::full(sizes, Scalar(1.0), type.dtype));
  }
  return grads;
}

}  // namespace

Expected<ValueAndGrad> value_and_grad(const Graph& forward, std::span<const Tensor> inputs,
                                      std::span<const Tensor> output_grads, const JointOptions& options) {
  Expected<JointGraph> joint = joint_graph(forward, options);
  if (!joint) return joint.error();
  if (static_cast<int>(inputs.size()) != forward.num_inputs())
    return make_error("value_and_grad: graph @", forward.name(), " takes ", forward.num_inputs(), " inputs, given ",
                      inputs.size());

  std::vector<Tensor> tangents;
  if (output_grads.empty()) {
    Expected<std::vector<Tensor>> ones = default_output_grads(forward, inputs);
    if (!ones) return ones.error();
    tangents = std::move(*ones);
  } else {
    tangents.assign(output_grads.begin(), output_grads.end());
  }
  const int num_tangents = joint->graph->num_inputs() - joint->num_primals;
  if (static_cast<int>(tangents.size()) != num_tangents)
    return make_error("value_and_grad: graph @", forward.name(), " has ", num_tangents,
                      " differentiable outputs, given ", tangents.size(), " output gradients");

  std::vector<Tensor> joint_inputs(inputs.begin(), inputs.end());
  joint_inputs.insert(joint_inputs.end(), tangents.begin(), tangents.end());
  Expected<std::vector<Tensor>> results = interpret(*joint->graph, joint_inputs);
  if (!results) return results.error();

  ValueAndGrad out;
  auto split = results->begin() + joint->num_forward_outputs;
  out.values.assign(results->begin(), split);
  out.grads.assign(split, results->end());
  return out;
}

}  // namespace kiln
