// joint_graph: one graph that computes a forward graph's outputs and, by reverse-mode
// differentiation with the derivative rules (derivative.h), the gradients of chosen inputs.
//
// A forward graph with in-place ops is functionalized first (passes/functionalize.h, input
// mutations as extra outputs): the joint graph's forward outputs are the user outputs followed
// by the new value of each mutated input (JointGraph::write_back_inputs), which the caller
// writes back. Gradients are with respect to the inputs' values on entry.
//
// Random draws read one runtime generator state (passes/lift_rng_state.h): unless the graph
// has an input of role rng_state already, one is added after the forward inputs
// (JointGraph::rng_state_added), and the caller supplies (seed, offset) for each run. The
// backward's dropout masks, and any random node the partitioner recomputes, read the same
// state, so they replay the forward's draws.
//
// Its inputs are the forward inputs (primals, roles kept) followed by one input of role
// `tangent` per forward output that needs one: a floating output that some differentiated
// input reaches and that is not a write-back. An output that is a differentiated input, or a
// view of one, takes a tangent too, and its gradient flows to that input (through the view's
// rule): the reference regenerates such outputs outside its compiled graph and autograd
// carries their gradient there, and kiln has no outside. OutputGradKind says why an output
// has or has no tangent. Its outputs are the forward outputs followed by one gradient per
// differentiated input, in input order. Inputs that no gradient reaches get zeros_like. The
// result is dead-code eliminated and verified.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "support/diagnostic.h"

namespace kiln {

// Which forward outputs get a tangent input.
enum class TangentPolicy {
  WhereNeeded,          // only outputs of kind Tangent (OutputGradKind)
  EveryFloatingOutput,  // every floating output, aliases and constants included (for the bodies of
                        // higher-order ops, whose callers feed a gradient to every body output)
};

struct JointOptions {
  // Names of the inputs to differentiate; empty: every floating input of role input or param.
  std::vector<std::string> wrt = {};
  TangentPolicy tangents = TangentPolicy::WhereNeeded;
  // Random draws of the top-level graph read a runtime rng_state input (false: they keep
  // their static seeds and draw the same numbers on every run).
  bool lift_rng_state = true;
};

// Why a forward output of the joint graph has a tangent, or has none.
enum class OutputGradKind {
  Tangent,            // floating, reached by a differentiated input
  NotDifferentiable,  // integer or bool
  NoGradient,         // floating, but no differentiated input reaches it
  WriteBack,          // the new value of a mutated input
};
std::string_view output_grad_kind_name(OutputGradKind k);  // "tangent", "not_differentiable", ...

struct JointGraph {
  std::unique_ptr<Graph> graph;
  // The forward inputs, plus the rng_state input when joint_graph added it (the last primal).
  int num_primals = 0;
  int rng_state_input = -1;      // the primal of role rng_state, or -1 when nothing draws
  bool rng_state_added = false;  // whether joint_graph added it (the caller supplies its value)
  // The user outputs, then one write-back output per mutated input.
  int num_forward_outputs = 0;
  int num_user_outputs = 0;
  // Forward output num_user_outputs + k is the new value of forward input write_back_inputs[k].
  std::vector<int> write_back_inputs;
  // For each forward output: whether it has a tangent, and the index of that tangent among
  // the joint graph's inputs (-1 when it has none).
  std::vector<OutputGradKind> output_grad;
  std::vector<int> tangent_input;
  // For each differentiated forward input: its index among the forward inputs; the joint
  // graph's output num_forward_outputs + k is the gradient of input wrt_inputs[k].
  std::vector<int> wrt_inputs;
};

// Higher-order ops (cond, scan, map) are differentiated through their bodies, recursively.
// Fails naming the node when the forward graph uses an op whose derivative rule is not
// written yet, or one kiln cannot differentiate (while_loop), on a path from a differentiated
// input to an output, also inside a body (the error then says which body of which node); or
// where functionalization fails. Fails too for a wrt name that names no input or a non-floating one.
Expected<JointGraph> joint_graph(const Graph& forward, const JointOptions& options = {});

}  // namespace kiln
