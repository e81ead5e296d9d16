// The derivative of a higher-order op's body: its joint graph, and subgraphs cut from it.
#include "autograd/body_gradient.h"

#include <algorithm>

#include "autograd/joint_graph.h"
#include "ir/graph_builder.h"
#include "passes/dce.h"
#include "support/check.h"

namespace kiln {

namespace {

// The joint graph with only `outputs` kept, dead nodes removed.
std::unique_ptr<Graph> cut(const Graph& joint, std::span<const int> outputs) {
  std::unique_ptr<Graph> g = joint.clone();
  std::vector<Value*> kept;
  for (int i : outputs) kept.push_back(g->outputs()[static_cast<size_t>(i)]);
  g->set_outputs(std::move(kept));
  eliminate_dead_code(*g);
  return g;
}

bool is_read(const Graph& g, const Value* in) {
  return in->has_uses() || std::ranges::find(g.outputs(), in) != g.outputs().end();
}

// The body's joint graph, differentiated with respect to every floating input whatever its
// role (a body built by an earlier differentiation has tangent inputs). A body's random draws
// keep their static seeds (lift_rng_state leaves subgraphs alone), so the backward body,
// recomputing them, replays the forward's draws without a generator state of its own.
Expected<JointGraph> joint_of_body(const Graph& body) {
  std::unique_ptr<Graph> plain = body.clone();
  for (Value* in : plain->inputs()) in->set_role(InputRole::Input);
  return joint_graph(*plain, {.tangents = TangentPolicy::EveryFloatingOutput, .lift_rng_state = false});
}

}  // namespace

std::vector<bool> BodyGradient::reads(std::span<const int> outputs) const {
  std::unique_ptr<Graph> g = cut(*joint, outputs);
  std::vector<bool> out;
  for (const Value* in : g->inputs()) out.push_back(is_read(*g, in));
  return out;
}

std::unique_ptr<Graph> BodyGradient::rewire(const std::string& name, std::span<const int> inputs,
                                            std::span<const int> outputs) const {
  std::unique_ptr<Graph> cut_joint = cut(*joint, outputs);
  auto g = std::make_unique<Graph>(name);
  std::vector<Value*> joint_inputs(static_cast<size_t>(joint->num_inputs()), nullptr);
  for (int i : inputs) {
    const Value* in = joint->input(i);
    KILN_CHECK(joint_inputs[static_cast<size_t>(i)] == nullptr)
        << "BodyGradient::rewire: joint input " << i << " listed twice";
    joint_inputs[static_cast<size_t>(i)] = g->add_input(in->name(), in->type());
  }
  GraphBuilder b(*g);
  g->set_outputs(b.inline_graph(*cut_joint, joint_inputs));
  return g;
}

Status check_body_differentiable(const Graph& body, const std::string& where) {
  Expected<JointGraph> joint = joint_of_body(body);
  if (joint) return Status::ok();
  Diagnostic d = joint.error();
  d.add_context("in " + where);
  return d;
}

BodyGradient body_gradient(const Graph& body) {
  Expected<JointGraph> joint = joint_of_body(body);
  KILN_CHECK(joint.has_value()) << "body_gradient: @" << body.name()
                                << " is not differentiable: " << joint.error().to_string();
  BodyGradient out;
  out.num_inputs = body.num_inputs();
  out.tangent_of_output = joint->tangent_input;
  out.grad_of_input.assign(static_cast<size_t>(body.num_inputs()), -1);
  for (size_t k = 0; k < joint->wrt_inputs.size(); ++k)
    out.grad_of_input[static_cast<size_t>(joint->wrt_inputs[k])] = joint->num_forward_outputs + static_cast<int>(k);
  out.joint = std::move(joint->graph);
  return out;
}

}  // namespace kiln
