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
  std::vector<Tensor> values;  // the forward outputs
  std::vector<Tensor> grads;   // one per differentiated input (JointGraph::wrt_inputs order)
};

// `inputs` match the forward graph's inputs. `output_grads` holds one gradient per
// differentiable (floating) forward output, in output order; empty: ones of each such
// output's shape (the usual case: a scalar loss). Inputs no gradient reaches get zeros.
Expected<ValueAndGrad> value_and_grad(const Graph& forward, std::span<const Tensor> inputs,
                                      std::span<const Tensor> output_grads = {}, const JointOptions& options = {});

}  // namespace kiln
