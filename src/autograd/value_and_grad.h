// value_and_grad: a forward graph's outputs and the gradients of its inputs, computed by
// building the joint graph (joint_graph.h) and running it on the reference interpreter.
// The partitioned, compiled train step comes later (issue 3); this is the reference for it.
#pragma once

#include <span>
#include <vector>

#include "autograd/joint_graph.h"
#include "core/tensor.h"
#include "ir/graph.h"
#include "support/diagnostic.h"

namespace kiln {

struct ValueAndGrad {
  std::vector<Tensor> values;  // the forward graph's outputs
  std::vector<Tensor> grads;   // one per differentiated input (JointGraph::wrt_inputs order)
};

// `inputs` match the forward graph's inputs; inputs the graph mutates are updated in place.
// Random draws use the generator state (seed 0, offset 0) unless the graph has an input of
// role rng_state (JointGraph::rng_state_added).
// `output_grads` holds one gradient per forward output with a tangent
// (JointGraph::tangent_input), in output order; empty: ones of each such output's shape (the
// usual case: a scalar loss). Inputs no gradient reaches get zeros.
Expected<ValueAndGrad> value_and_grad(const Graph& forward, std::span<const Tensor> inputs,
                                      std::span<const Tensor> output_grads = {}, const JointOptions& options = {});

// Writes the new values of the inputs the forward graph mutates (the write-back outputs among
// `forward_outputs`, JointGraph::write_back_inputs) into those inputs, as running the forward
// graph eagerly would have.
void write_back_inputs(const JointGraph& joint, std::span<const Tensor> inputs,
                       std::span<const Tensor> forward_outputs);

}  // namespace kiln
