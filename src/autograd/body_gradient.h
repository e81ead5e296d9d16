// The reverse-mode derivative of a body of a higher-order op (a branch of cond, the body of
// map, the combine function of scan), for those ops' derivative rules: the body's own joint
// graph (joint_graph.h), differentiated with respect to every floating input. The rules wrap
// it into the subgraph of a backward cond, map or scan.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "support/diagnostic.h"

namespace kiln {

struct BodyGradient {
  // Inputs: the body's inputs, then one tangent per floating body output. Outputs: the body's
  // outputs, then the gradients of its floating inputs.
  std::unique_ptr<Graph> joint;
  int num_inputs = 0;                  // the body's
  std::vector<int> tangent_of_output;  // per body output: its tangent's input index in `joint`, or -1
  std::vector<int> grad_of_input;      // per body input: its gradient's output index in `joint`, or -1

  // Per joint input: whether computing joint outputs `outputs` reads it.
  std::vector<bool> reads(std::span<const int> outputs) const;
  // A closed subgraph named `name` that computes joint outputs `outputs` from `inputs`:
  // input k of the subgraph is what joint input inputs[k] reads. Joint inputs the outputs
  // do not read may be left out; the others are listed once. Roles are plain inputs.
  std::unique_ptr<Graph> rewire(const std::string& name, std::span<const int> inputs,
                                std::span<const int> outputs) const;
};

// Fails as joint_graph does (an op without a rule in the body, ...), with the body named in
// the context. joint_graph checks every body this way before a rule asks for its gradient.
Status check_body_differentiable(const Graph& body, const std::string& where);

// The derivative of `body`; the body must pass check_body_differentiable (internal error
// otherwise).
BodyGradient body_gradient(const Graph& body);

}  // namespace kiln
