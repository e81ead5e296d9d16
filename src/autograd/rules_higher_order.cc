// Derivative rules of cond and map: the backward is the same higher-order op over the body's
// joint graph (body_gradient.h), given the forward operands and the output gradients, which
// recomputes the body's forward inside the backward body. Scan's rule is in rules_scan.cc;
// while_loop is not differentiable in reverse mode (derivatives.def says why).
#include <numeric>

#include "autograd/body_gradient.h"
#include "autograd/derivative_rules.h"
#include "autograd/rule_util.h"

namespace kiln {

using namespace grad;

namespace {

// The gradient outputs of `body`'s joint graph for the given body inputs.
std::vector<int> grad_outputs(const BodyGradient& body, const std::vector<int>& differentiated) {
  std::vector<int> out;
  for (int i : differentiated) out.push_back(body.grad_of_input[static_cast<size_t>(i)]);
  return out;
}

// The floating body inputs (those the joint graph differentiates).
std::vector<int> differentiated_inputs(const BodyGradient& body) {
  std::vector<int> out;
  for (int i = 0; i < body.num_inputs; ++i)
    if (body.grad_of_input[static_cast<size_t>(i)] >= 0) out.push_back(i);
  return out;
}

}  // namespace

// cond(pred, args...) -> cond(pred, args..., tangents...) without the operands neither backward
// branch reads, each branch its branch's joint graph cut down to the operands' gradients.
// Both branches take the same operands and give outputs of the same types, so their joint
// graphs have the same inputs and both differentiate exactly the floating operands; one a
// branch does not read gets zeros there.
std::vector<Value*> grad_rule_cond(const GradCall& c) {
  const Node& n = c.node;
  std::vector<Value*> grads(static_cast<size_t>(n.num_operands()), nullptr);
  const BodyGradient branches[2] = {body_gradient(*n.subgraph(0)), body_gradient(*n.subgraph(1))};
  const std::vector<int> differentiated = differentiated_inputs(branches[0]);
  if (differentiated.empty()) return grads;

  // Joint inputs are (args..., tangents...): operand k + 1, then the tangents in order.
  std::vector<Operand> joint_operands(n.operands().begin() + 1, n.operands().end());
  for (Value* t : result_tangents(c)) joint_operands.push_back(t);
  std::vector<bool> read(joint_operands.size(), false);
  for (const BodyGradient& branch : branches) {
    const std::vector<bool> r = branch.reads(grad_outputs(branch, differentiated));
    for (size_t i = 0; i < read.size(); ++i) read[i] = read[i] || r[i];
  }
  std::vector<int> inputs;
  std::vector<Operand> operands{n.operand(0)};
  for (size_t i = 0; i < read.size(); ++i)
    if (read[i]) {
      inputs.push_back(static_cast<int>(i));
      operands.push_back(joint_operands[i]);
    }
  std::vector<std::unique_ptr<Graph>> bodies;
  for (int k = 0; k < 2; ++k)
    bodies.push_back(
        branches[k].rewire(n.subgraph(k)->name() + "_grad", inputs, grad_outputs(branches[k], differentiated)));
  std::vector<Value*> results = c.b.apply_higher_order(OpKind::Cond, std::move(operands), {}, std::move(bodies));
  for (size_t k = 0; k < differentiated.size(); ++k) grads[static_cast<size_t>(differentiated[k]) + 1] = results[k];
  return grads;
}

// map(xs..., extra...) -> map(xs..., tangents..., extra...) whose body gives each floating
// operand's gradient for one index: stacked, that is the gradient of a mapped operand; an
// extra operand, read by every index, gets the sum over the mapped dim. Operands the
// backward body does not read are left out (but one mapped operand stays, for the length).
std::vector<Value*> grad_rule_map(const GradCall& c) {
  const Node& n = c.node;
  const int num_mapped = static_cast<int>(c.attr_int("num_mapped"));
  const int num_operands = n.num_operands();
  std::vector<Value*> grads(static_cast<size_t>(num_operands), nullptr);
  const BodyGradient body = body_gradient(*n.subgraph(0));
  const std::vector<int> differentiated = differentiated_inputs(body);
  if (differentiated.empty()) return grads;
  const std::vector<int> outputs = grad_outputs(body, differentiated);
  const std::vector<bool> read = body.reads(outputs);

  // The joint graph reads (xs..., extra..., tangents...); the backward body takes the mapped
  // ones first: (xs..., tangents..., extra...).
  std::vector<Operand> joint_operands(n.operands().begin(), n.operands().end());
  for (Value* t : result_tangents(c)) joint_operands.push_back(t);
  const int num_tangents = static_cast<int>(joint_operands.size()) - num_operands;
  std::vector<int> order(static_cast<size_t>(num_mapped));
  std::iota(order.begin(), order.end(), 0);
  for (int t = 0; t < num_tangents; ++t) order.push_back(num_operands + t);
  const size_t mapped = order.size();
  for (int i = num_mapped; i < num_operands; ++i) order.push_back(i);
  std::vector<int> inputs;
  std::vector<Operand> operands;
  int new_mapped = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const bool keep = read[static_cast<size_t>(order[k])] || (k + 1 == mapped && new_mapped == 0);
    if (!keep) continue;
    inputs.push_back(order[k]);
    operands.push_back(joint_operands[static_cast<size_t>(order[k])]);
    new_mapped += k < mapped;
  }
  std::vector<std::unique_ptr<Graph>> bodies;
  bodies.push_back(body.rewire(n.subgraph(0)->name() + "_grad", inputs, outputs));
  std::vector<Value*> results = c.b.apply_higher_order(OpKind::Map, std::move(operands),
                                                       {{"num_mapped", int64_t{new_mapped}}}, std::move(bodies));
  for (size_t k = 0; k < differentiated.size(); ++k) {
    Value* g = results[k];
    if (differentiated[k] >= num_mapped) g = c.b.apply1(OpKind::Sum, {g}, {{"dim", AttrValue::Ints{0}}});
    grads[static_cast<size_t>(differentiated[k])] = g;
  }
  return grads;
}

}  // namespace kiln
