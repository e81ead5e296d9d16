// The derivative rule of scan: a reverse scan whose combine function is combine_fn's joint
// graph (body_gradient.h). The carry gradients are its carries; combine_fn's forward carries at
// each step, which the joint graph reads, are recomputed by a second forward scan that
// emits them as per-step outputs (the forward node stays as it is, so the partitioner decides
// what the backward recomputes). Carries combine_fn returns unchanged (closures, which
// capture lifts to carries) are the same at every step: they ride along as carries instead,
// and their gradient accumulates over the steps in the reverse scan's carry.
// The backward works along dim 0 (operands moved there first). scan's scanned operands must
// share a rank, so when those of the reverse scan do not, each is flattened to [steps, numel]
// and the backward combine function reshapes its slices back.
#include "autograd/body_gradient.h"
#include "autograd/derivative_rules.h"
#include "autograd/rule_util.h"
#include "passes/dce.h"
#include "support/check.h"

namespace kiln {

using namespace grad;

namespace {

// `v` with dim `from` moved to position `to`, the other dims in order.
Value* move_dim(GraphBuilder& b, Value* v, int from, int to) {
  if (from == to) return v;
  AttrValue::Ints dims;
  for (int d = 0; d < v->type().shape.rank(); ++d)
    if (d != from) dims.push_back(d);
  dims.insert(dims.begin() + to, from);
  return b.apply1(OpKind::Permute, {v}, {{"dims", dims}});
}

Value* flip_steps(GraphBuilder& b, Value* v) { return b.apply1(OpKind::Flip, {v}, {{"dims", AttrValue::Ints{0}}}); }

Value* reshape(GraphBuilder& b, Value* v, const Shape& shape) {
  if (v->type().shape == shape) return v;
  return b.apply1(OpKind::Reshape, {v}, {{"shape", shape.sizes()}});
}

Shape flat_steps(const Shape& per_step, int64_t steps) { return Shape({steps, per_step.numel()}); }

// The forward scan's pieces, as the backward needs them.
struct ScanParts {
  int num_init = 0, dim = 0;
  int64_t steps = 0;
  std::vector<bool> invariant;  // per carry: combine_fn returns it unchanged
  std::vector<Value*> xs;       // the scanned operands, moved to dim 0
};

ScanParts scan_parts(const GradCall& c) {
  ScanParts p;
  const Graph& combine = *c.node.subgraph(0);
  p.num_init = static_cast<int>(c.attr_int("num_init"));
  const int rank = c.operand(p.num_init)->type().shape.rank();
  p.dim = static_cast<int>(c.attr_int("dim") < 0 ? c.attr_int("dim") + rank : c.attr_int("dim"));
  p.steps = c.operand(p.num_init)->type().shape[p.dim].value();
  for (int k = 0; k < p.num_init; ++k)
    p.invariant.push_back(combine.outputs()[static_cast<size_t>(k)] == combine.input(k));
  for (int i = p.num_init; i < c.node.num_operands(); ++i) p.xs.push_back(move_dim(c.b, c.operand(i), p.dim, 0));
  return p;
}

// The carries of the varying (not invariant) carries at the start of each step, stacked
// along dim 0: a scan of combine_fn that emits its carry inputs as per-step outputs.
std::vector<Value*> carries_per_step(const GradCall& c, const ScanParts& p) {
  const Graph& combine = *c.node.subgraph(0);
  std::unique_ptr<Graph> body = combine.clone();
  body->set_name(combine.name() + "_carries");
  std::vector<Value*> outputs(body->outputs().begin(), body->outputs().begin() + p.num_init);
  int varying = 0;
  for (int k = 0; k < p.num_init; ++k)
    if (!p.invariant[static_cast<size_t>(k)]) {
      outputs.push_back(body->input(k));
      ++varying;
    }
  if (varying == 0) return {};
  body->set_outputs(std::move(outputs));
  eliminate_dead_code(*body);
  std::vector<Operand> operands(c.node.operands().begin(), c.node.operands().begin() + p.num_init);
  operands.insert(operands.end(), p.xs.begin(), p.xs.end());
  std::vector<std::unique_ptr<Graph>> bodies;
  bodies.push_back(std::move(body));
  std::vector<Value*> results =
      c.b.apply_higher_order(OpKind::Scan, std::move(operands), {{"num_init", int64_t{p.num_init}}}, std::move(bodies));
  return {results.begin() + p.num_init, results.end()};
}

// One value the reverse scan reads at each step, with the joint-graph input it feeds.
struct StepInput {
  Value* stacked;  // [steps, ...] along dim 0, in forward order
  int joint_input;
};

}  // namespace

std::vector<Value*> grad_rule_scan(const GradCall& c) {
  const Node& n = c.node;
  GraphBuilder& b = c.b;
  std::vector<Value*> grads(static_cast<size_t>(n.num_operands()), nullptr);
  const BodyGradient body = body_gradient(*n.subgraph(0));
  const ScanParts p = scan_parts(c);
  const int num_carries = p.num_init, num_xs = static_cast<int>(p.xs.size());
  const Graph& joint = *body.joint;

  // Gradient outputs of the backward combine function: floating carries, then floating xs.
  std::vector<int> carry_grads, x_grads;  // operand indices
  for (int i = 0; i < n.num_operands(); ++i)
    if (body.grad_of_input[static_cast<size_t>(i)] >= 0) (i < num_carries ? carry_grads : x_grads).push_back(i);
  if (carry_grads.empty() && x_grads.empty()) return grads;

  // What the reverse scan reads per step: varying carries, xs, gradients of floating ys.
  std::vector<StepInput> steps;
  const std::vector<Value*> carries = carries_per_step(c, p);
  for (int k = 0, v = 0; k < num_carries; ++k)
    if (!p.invariant[static_cast<size_t>(k)]) steps.push_back({carries[static_cast<size_t>(v++)], k});
  for (int j = 0; j < num_xs; ++j) steps.push_back({p.xs[static_cast<size_t>(j)], num_carries + j});
  const std::vector<Value*> tangents = result_tangents(c);
  for (int r = num_carries; r < n.num_results(); ++r) {
    const int joint_input = body.tangent_of_output[static_cast<size_t>(r)];
    if (joint_input < 0) continue;
    steps.push_back(
        {move_dim(b, tangents[static_cast<size_t>(joint_input - n.num_operands())], p.dim, 0), joint_input});
  }
  bool same_rank = true;
  for (const StepInput& s : steps)
    same_rank = same_rank && s.stacked->type().shape.rank() == steps[0].stacked->type().shape.rank();

  // The backward combine function: (carry gradients..., invariant carries..., step inputs...)
  // -> (carry gradients..., invariant carries..., per-step xs gradients...).
  auto bwd = std::make_unique<Graph>(n.subgraph(0)->name() + "_grad");
  std::vector<Value*> joint_inputs(static_cast<size_t>(joint.num_inputs()), nullptr);
  std::vector<Operand> operands;
  for (int k : carry_grads) {
    const int t = body.tangent_of_output[static_cast<size_t>(k)];
    joint_inputs[static_cast<size_t>(t)] = bwd->add_input(joint.input(t)->name(), joint.input(t)->type());
    operands.push_back(tangents[static_cast<size_t>(t - n.num_operands())]);
  }
  std::vector<Value*> invariant_inputs;
  for (int k = 0; k < num_carries; ++k)
    if (p.invariant[static_cast<size_t>(k)]) {
      invariant_inputs.push_back(bwd->add_input(joint.input(k)->name(), joint.input(k)->type()));
      joint_inputs[static_cast<size_t>(k)] = invariant_inputs.back();
      operands.push_back(c.operand(k));
    }
  const int num_init = static_cast<int>(operands.size());
  GraphBuilder inner(*bwd);
  for (const StepInput& s : steps) {
    const Value* in = joint.input(s.joint_input);
    const Shape& per_step = in->type().shape;
    Value* stacked = flip_steps(b, same_rank ? s.stacked : reshape(b, s.stacked, flat_steps(per_step, p.steps)));
    operands.push_back(stacked);
    TensorType slice = stacked->type();
    slice.shape.dims().erase(slice.shape.dims().begin());
    joint_inputs[static_cast<size_t>(s.joint_input)] = bwd->add_input(in->name(), slice);
  }
  for (size_t i = 0; i < joint_inputs.size(); ++i) {
    KILN_CHECK(joint_inputs[i] != nullptr) << "derivative of scan: nothing feeds input " << i << " of the joint graph";
    joint_inputs[i] = reshape(inner, joint_inputs[i], joint.input(static_cast<int>(i))->type().shape);
  }
  const std::vector<Value*> joint_outputs = inner.inline_graph(joint, joint_inputs);
  std::vector<Value*> outputs;
  for (int k : carry_grads)
    outputs.push_back(joint_outputs[static_cast<size_t>(body.grad_of_input[static_cast<size_t>(k)])]);
  outputs.insert(outputs.end(), invariant_inputs.begin(), invariant_inputs.end());
  for (int i : x_grads)
    outputs.push_back(joint_outputs[static_cast<size_t>(body.grad_of_input[static_cast<size_t>(i)])]);
  bwd->set_outputs(std::move(outputs));
  eliminate_dead_code(*bwd);

  std::vector<std::unique_ptr<Graph>> bodies;
  bodies.push_back(std::move(bwd));
  const std::vector<Value*> results =
      b.apply_higher_order(OpKind::Scan, std::move(operands), {{"num_init", int64_t{num_init}}}, std::move(bodies));
  for (size_t k = 0; k < carry_grads.size(); ++k) grads[static_cast<size_t>(carry_grads[k])] = results[k];
  for (size_t j = 0; j < x_grads.size(); ++j)
    grads[static_cast<size_t>(x_grads[j])] =
        move_dim(b, flip_steps(b, results[static_cast<size_t>(num_init) + j]), 0, p.dim);
  return grads;
}

}  // namespace kiln
