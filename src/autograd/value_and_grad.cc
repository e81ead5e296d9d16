// value_and_grad: the joint graph run on the interpreter.
#include "autograd/value_and_grad.h"

#include "interp/interpreter.h"
#include "ops/rng_state.h"
#include "support/check.h"

namespace kiln {

namespace {

// Ones shaped like each output that has a tangent. Such outputs come from differentiated
// nodes, whose shapes joint_graph requires to be static.
std::vector<Tensor> default_output_grads(const JointGraph& joint) {
  std::vector<Tensor> grads;
  for (size_t k = 0; k < joint.tangent_input.size(); ++k) {
    if (joint.tangent_input[k] < 0) continue;
    const TensorType& type = joint.graph->input(joint.tangent_input[k])->type();
    KILN_CHECK(type.shape.is_static()) << "value_and_grad: output " << k << " has a tangent of symbolic type "
                                       << type.to_string();
    grads.push_back(Tensor::full(type.shape.sizes(), Scalar(1.0), type.dtype));
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
    tangents = default_output_grads(*joint);
  } else {
    tangents.assign(output_grads.begin(), output_grads.end());
  }
  const int num_tangents = joint->graph->num_inputs() - joint->num_primals;
  if (static_cast<int>(tangents.size()) != num_tangents)
    return make_error("value_and_grad: graph @", forward.name(), " has ", num_tangents,
                      " outputs that take a gradient, given ", tangents.size(), " output gradients");

  std::vector<Tensor> joint_inputs(inputs.begin(), inputs.end());
  if (joint->rng_state_added) joint_inputs.push_back(make_rng_state(0, 0));
  joint_inputs.insert(joint_inputs.end(), tangents.begin(), tangents.end());
  Expected<std::vector<Tensor>> results = interpret(*joint->graph, joint_inputs);
  if (!results) return results.error();

  const auto split = results->begin() + joint->num_forward_outputs;
  write_back_inputs(*joint, inputs, {results->begin(), split});
  ValueAndGrad out;
  out.values.assign(results->begin(), results->begin() + joint->num_user_outputs);
  out.grads.assign(split, results->end());
  return out;
}

void write_back_inputs(const JointGraph& joint, std::span<const Tensor> inputs,
                       std::span<const Tensor> forward_outputs) {
  for (size_t k = 0; k < joint.write_back_inputs.size(); ++k) {
    Tensor target = inputs[static_cast<size_t>(joint.write_back_inputs[k])];
    target.copy_from(forward_outputs[static_cast<size_t>(joint.num_user_outputs) + k]);
  }
}

}  // namespace kiln
