// joint_graph: one graph that computes a forward graph's outputs and, by reverse-mode
// differentiation with the derivative rules (derivative.h), the gradients of chosen inputs.
// Its inputs are the forward inputs (primals, roles kept) followed by one input of role
// `tangent` per differentiable forward output (floating dtype); its outputs are the forward
// outputs followed by one gradient per differentiated input, in input order.
// A floating output that is a graph input, or aliases one, still gets a tangent (its gradient
// flows to that input); functionalization decides later which outputs are aliases. Inputs
// that no gradient reaches get zeros_like. The result is dead-code eliminated and verified.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "support/diagnostic.h"

namespace kiln {

struct JointOptions {
  // Names of the inputs to differentiate; empty: every floating input of role input or param.
  std::vector<std::string> wrt = {};
};

struct JointGraph {
  std::unique_ptr<Graph> graph;
  int num_primals = 0;
  int num_forward_outputs = 0;
  // For each forward output, the index of its tangent among the joint graph's inputs, or -1
  // when the output is not differentiable (integer or bool).
  std::vector<int> tangent_input;
  // For each differentiated forward input: its index among the forward inputs; the joint
  // graph's output num_forward_outputs + k is the gradient of input wrt_inputs[k].
  std::vector<int> wrt_inputs;
};

// Higher-order ops (cond, scan, map) are differentiated through their bodies, recursively.
// Fails naming the node when the forward graph uses an op whose derivative rule is not
// written yet, or one kiln cannot differentiate (while_loop), on a path from a differentiated
// input to an output, also inside a body (the error then says which body of which node); or
// an in-place op reading a value that depends on a differentiated input (functionalize
// first). Fails too for a wrt name that names no input or a non-floating one.
Expected<JointGraph> joint_graph(const Graph& forward, const JointOptions& options = {});

}  // namespace kiln
