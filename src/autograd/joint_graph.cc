// joint_graph: the forward graph functionalized and cloned, one tangent input per output that
// needs one, then reverse-mode differentiation appended node by node with the derivative rules.
#include "autograd/joint_graph.h"

#include <algorithm>
#include <ranges>
#include <unordered_map>
#include <unordered_set>

#include "autograd/body_gradient.h"
#include "autograd/derivative.h"
#include "ir/graph_builder.h"
#include "ir/printer.h"
#include "ir/written_operands.h"
#include "passes/lift_rng_state.h"
#include "passes/pass_manager.h"
#include "support/check.h"

namespace kiln {

namespace {

bool is_differentiable_type(const Value* v) { return is_floating(v->type().dtype); }

// Indices of the forward inputs to differentiate, in input order.
Expected<std::vector<int>> select_wrt(const Graph& forward, const JointOptions& options) {
  std::vector<int> wrt;
  if (options.wrt.empty()) {
    for (int i = 0; i < forward.num_inputs(); ++i) {
      const Value* in = forward.input(i);
      const bool role_ok = in->role() == InputRole::Input || in->role() == InputRole::Param;
      if (role_ok && is_differentiable_type(in)) wrt.push_back(i);
    }
    return wrt;
  }
  for (const std::string& name : options.wrt) {
    int found = -1;
    for (int i = 0; i < forward.num_inputs(); ++i)
      if (forward.input(i)->name() == name) found = i;
    if (found < 0) {
      std::string names;
      for (const Value* in : forward.inputs()) names += (names.empty() ? "" : ", ") + in->name();
      return make_error("joint_graph: wrt names no input '", name, "' of graph @", forward.name(), " (inputs: ", names,
                        ")");
    }
    const Value* in = forward.input(found);
    if (!is_differentiable_type(in))
      return make_error("joint_graph: cannot differentiate with respect to input '", name, "' of type ",
                        in->type().to_string(), ": only floating inputs have gradients");
    wrt.push_back(found);
  }
  // std::sort and std::unique, not their ranges forms: clang 14 cannot instantiate the
  // subrange that std::ranges::unique returns from libstdc++ 12.
  std::sort(wrt.begin(), wrt.end());
  wrt.erase(std::unique(wrt.begin(), wrt.end()), wrt.end());
  return wrt;
}

// The values that depend on a differentiated input through differentiable ops: only these
// need gradients. The graph is functional (no in-place ops).
std::unordered_set<const Value*> active_values(const Graph& g, const std::vector<int>& wrt) {
  std::unordered_set<const Value*> active;
  for (int i : wrt) active.insert(g.input(i));
  for (const Node* n : g.nodes()) {
    KILN_CHECK(!writes_operands(*n)) << "joint_graph: in-place node left after functionalization: " << print_node(*n);
    bool reads_active = std::ranges::any_of(n->operands(), [&](const Operand& o) { return active.contains(o.value); });
    if (!reads_active || derivative_info(n->op()).kind == Differentiability::NotDifferentiable) continue;
    for (const Value* r : n->results())
      if (is_differentiable_type(r)) active.insert(r);
  }
  return active;
}

bool has_inplace_ops(const Graph& g) {
  for (const Node* n : g.nodes()) {
    if (writes_operands(*n)) return true;
    for (int i = 0; i < n->num_subgraphs(); ++i)
      if (has_inplace_ops(*n->subgraph(i))) return true;
  }
  return false;
}

OutputGradKind classify_output(const Value* out, bool is_write_back, const std::unordered_set<const Value*>& active) {
  if (is_write_back) return OutputGradKind::WriteBack;
  if (!is_differentiable_type(out)) return OutputGradKind::NotDifferentiable;
  if (!active.contains(out)) return OutputGradKind::NoGradient;
  return OutputGradKind::Tangent;
}

bool gets_tangent(OutputGradKind kind, const Value* out, TangentPolicy policy) {
  if (policy == TangentPolicy::EveryFloatingOutput) return is_differentiable_type(out);
  return kind == OutputGradKind::Tangent;
}

// Gradients accumulated per value while walking the forward nodes backwards.
class GradientMap {
 public:
  explicit GradientMap(GraphBuilder& b) : b_(b) {}

  void accumulate(Value* v, Value* grad) {
    if (grad == nullptr) return;
    KILN_CHECK(grad->type() == v->type()) << "joint_graph: gradient of type " << grad->type().to_string()
                                          << " for a value of type " << v->type().to_string();
    auto [it, inserted] = grads_.try_emplace(v, grad);
    if (!inserted) it->second = b_.apply1(OpKind::Add, {it->second, grad});
  }

  Value* get(const Value* v) const {
    auto it = grads_.find(v);
    return it == grads_.end() ? nullptr : it->second;
  }

 private:
  GraphBuilder& b_;
  std::unordered_map<const Value*, Value*> grads_;
};

// Appends the vector-Jacobian product of `n` (a node of the joint graph; `fwd` is the same
// node in the forward graph, for errors) and accumulates its operands' gradients.
Status differentiate_node(Node& n, const Node& fwd, const std::unordered_set<const Value*>& active, GradientMap& grads,
                          GraphBuilder& b) {
  std::vector<Value*> result_grads;
  bool any = false;
  for (const Value* r : n.results()) {
    result_grads.push_back(active.contains(r) ? grads.get(r) : nullptr);
    any = any || result_grads.back() != nullptr;
  }
  if (!any) return Status::ok();

  const DerivativeInfo& info = derivative_info(n.op());
  if (info.kind == Differentiability::Pending)
    return make_error("joint_graph: no derivative rule for ", n.info().name(), " yet (at ", print_node(fwd), ")")
        .with_loc(fwd.loc());
  if (info.kind == Differentiability::Unsupported)
    return make_error("joint_graph: cannot differentiate ", n.info().name(), ": ", info.why, " (at ", print_node(fwd),
                      ")")
        .with_loc(fwd.loc());
  if (info.kind == Differentiability::NotDifferentiable) return Status::ok();
  // Several rules rebuild shapes from static sizes (reshape back, expand); symbolic dims in
  // derivative rules come with issue 4's symbolic expressions.
  for (const Operand& o : n.operands())
    if (o.value && !o.value->type().shape.is_static())
      return make_error("joint_graph: symbolic shapes are not differentiable yet (operand ",
                        o.value->type().to_string(), " at ", print_node(fwd), ")")
          .with_loc(fwd.loc());

  // The rules of higher-order ops differentiate the bodies; what stops that is a user error.
  for (int i = 0; i < n.num_subgraphs(); ++i) {
    const std::string where = n.info().schema.subgraph_args()[static_cast<size_t>(i)]->name + " of " +
                              std::string(n.info().name()) + " (at " + print_node(fwd) + ")";
    Status body = check_body_differentiable(*n.subgraph(i), where);
    if (!body) return body.error().with_loc(fwd.loc());
  }

  std::vector<Value*> operand_grads = info.rule(GradCall(n, result_grads, b));
  // Rules give one gradient per schema operand; trailing optional operands left out of the
  // node (dispatch drops trailing `none`s) get none.
  while (static_cast<int>(operand_grads.size()) > n.num_operands() && operand_grads.back() == nullptr)
    operand_grads.pop_back();
  KILN_CHECK(static_cast<int>(operand_grads.size()) == n.num_operands())
      << "joint_graph: the rule of " << n.info().name() << " gives " << operand_grads.size() << " gradients for "
      << n.num_operands() << " operands";
  for (int i = 0; i < n.num_operands(); ++i) {
    Value* operand = n.operand(i).value;
    if (operand != nullptr && active.contains(operand)) grads.accumulate(operand, operand_grads[i]);
  }
  return Status::ok();
}

}  // namespace

std::string_view output_grad_kind_name(OutputGradKind k) {
  switch (k) {
    case OutputGradKind::Tangent: return "tangent";
    case OutputGradKind::NotDifferentiable: return "not_differentiable";
    case OutputGradKind::NoGradient: return "no_gradient";
    case OutputGradKind::WriteBack: return "write_back";
  }
  return "?";
}

Expected<JointGraph> joint_graph(const Graph& original, const JointOptions& options) {
  // In-place ops become functional ops, and input mutations extra outputs, first; random
  // draws read a runtime generator state.
  JointGraph joint;
  joint.num_user_outputs = static_cast<int>(original.outputs().size());
  std::unique_ptr<Graph> prepared = original.clone();
  std::string pipeline = has_inplace_ops(original) ? "functionalize," : "";
  if (options.lift_rng_state) pipeline += "lift-rng-state";
  PassManagerOptions passes;
  passes.functionalize = {.aliased_inputs = {}, .keep_input_mutations = false};
  PipelineFacts facts;
  KILN_TRY(run_passes(*prepared, pipeline, passes, &facts));
  if (facts.mutation_info) joint.write_back_inputs = facts.mutation_info->write_back_inputs;
  joint.rng_state_added = facts.counters["lift-rng-state"]["rng_state_inputs_added"] > 0;
  joint.rng_state_input = find_rng_state_input(*prepared);
  const Graph& forward = *prepared;

  Expected<std::vector<int>> wrt = select_wrt(forward, options);
  if (!wrt) return wrt.error();

  joint.graph = forward.clone();
  Graph& g = *joint.graph;
  g.set_name(original.name() + "_joint");
  joint.num_primals = forward.num_inputs();
  joint.num_forward_outputs = static_cast<int>(forward.outputs().size());
  joint.wrt_inputs = *wrt;

  // The clone has the forward graph's nodes in the same order; errors print the forward's.
  const std::vector<Node*> fwd_nodes = forward.nodes();
  const std::vector<Node*> nodes = g.nodes();
  const std::unordered_set<const Value*> active = active_values(g, *wrt);

  const std::vector<Value*> outputs = g.outputs();
  GraphBuilder b(g);
  GradientMap grads(b);
  for (size_t k = 0; k < outputs.size(); ++k) {
    const OutputGradKind kind = classify_output(outputs[k], static_cast<int>(k) >= joint.num_user_outputs, active);
    joint.output_grad.push_back(kind);
    if (!gets_tangent(kind, outputs[k], options.tangents)) {
      joint.tangent_input.push_back(-1);
      continue;
    }
    joint.tangent_input.push_back(g.num_inputs());
    Value* tangent = g.add_input("tangent" + std::to_string(k), outputs[k]->type(), InputRole::Tangent);
    if (active.contains(outputs[k])) grads.accumulate(outputs[k], tangent);
  }

  for (size_t k = nodes.size(); k-- > 0;) {
    Status s = differentiate_node(*nodes[k], *fwd_nodes[k], active, grads, b);
    if (!s) return s.error();
  }
  std::vector<Value*> joint_outputs = outputs;
  for (int i : *wrt) {
    Value* grad = grads.get(g.input(i));
    joint_outputs.push_back(grad != nullptr ? grad : b.zeros_like(g.input(i)));
  }
  g.set_outputs(std::move(joint_outputs));

  PassManagerOptions verified;
  verified.verify_each = true;
  Status cleaned = run_passes(g, "dce", verified);
  KILN_CHECK(cleaned.is_ok()) << "joint_graph built an invalid graph: " << cleaned.error().to_string();
  return joint;
}

}  // namespace kiln
