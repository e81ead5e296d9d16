#include "autograd/partition/extract.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/printer.h"
#include "ir/verifier.h"
#include "support/check.h"

namespace kiln::partitioning {

namespace {

using ValueMap = std::unordered_map<const Value*, Value*>;

// Marks the items needed to compute `targets` from `available` values.
std::vector<bool> needed_items(const JointView& view, const std::vector<const Value*>& targets,
                               const std::unordered_set<const Value*>& available) {
  std::vector<bool> needed(static_cast<size_t>(view.size()), false);
  std::vector<const Value*> stack(targets.begin(), targets.end());
  while (!stack.empty()) {
    const Value* v = stack.back();
    stack.pop_back();
    if (available.contains(v)) continue;
    const int i = view.item_of(v);
    if (needed[static_cast<size_t>(i)]) continue;
    needed[static_cast<size_t>(i)] = true;
    const Item& it = view.item(i);
    if (it.node == nullptr) continue;
    for (const Operand& o : it.node->operands())
      if (o.value) stack.push_back(o.value);
  }
  return needed;
}

std::vector<const Value*> gradient_outputs(const JointView& view) {
  const std::vector<Value*>& outs = view.joint().graph->outputs();
  return {outs.begin() + view.joint().num_forward_outputs, outs.end()};
}

std::unordered_set<const Value*> saved_and_tangents(const JointView& view, const std::vector<const Value*>& saved) {
  std::unordered_set<const Value*> available(saved.begin(), saved.end());
  for (const Value* in : view.joint().graph->inputs())
    if (in->role() == InputRole::Tangent) available.insert(in);
  return available;
}

const Node* copy_node(const Node& n, Graph& to, ValueMap& map) {
  Graph::NewNode nn{n.op(), {}, n.attrs(), {}, {}, n.loc()};
  for (const Operand& o : n.operands()) nn.operands.push_back(o.value ? Operand(map.at(o.value)) : o);
  for (Value* r : n.results()) nn.result_types.push_back(r->type());
  for (int i = 0; i < n.num_subgraphs(); ++i) nn.subgraphs.push_back(n.subgraph(i)->clone());
  Node* copy = to.append(std::move(nn));
  for (int i = 0; i < n.num_results(); ++i) map[n.result(i)] = copy->result(i);
  return copy;
}

// The autograd engine's order: from the first user of a tangent on, each backward item
// preceded by the not yet emitted items it depends on, in graph order.
std::vector<int> autograd_engine_order(const JointView& view, const std::vector<int>& items) {
  const std::set<int> in_backward(items.begin(), items.end());
  int first = -1;
  for (const Item& it : view.items())
    if (it.input != nullptr && it.input->role() == InputRole::Tangent)
      for (int u : it.users)
        if (in_backward.contains(u) && (first < 0 || u < first)) first = u;
  if (first < 0) return items;
  std::vector<int> order;
  std::set<int> emitted;
  const auto emit_with_dependencies = [&](int root) {
    std::set<int> pending;
    std::vector<int> stack = {root};
    while (!stack.empty()) {
      const int i = stack.back();
      stack.pop_back();
      if (!in_backward.contains(i) || emitted.contains(i) || !pending.insert(i).second) continue;
      for (int op : view.item(i).operands) stack.push_back(op);
    }
    for (int i : pending) {  // std::set iterates in graph order
      order.push_back(i);
      emitted.insert(i);
    }
  };
  for (int i : items)
    if (i >= first) emit_with_dependencies(i);
  for (int i : items) emit_with_dependencies(i);  // what only the outputs need
  return order;
}

// A saved value in IR syntax, for errors: its producer, or the input's name.
std::string value_text(const Value* v) {
  return v->is_input() ? "%" + v->name() + ": " + v->type().to_string() : print_node(*v->producer());
}

// Bytes of a saved value of static shape (0 for a symbolic one); past int64 (a size typo)
// it is an error naming the value, as no machine holds it.
Expected<int64_t> static_bytes(const Value* v) {
  const TensorType& t = v->type();
  if (!t.shape.is_static()) return int64_t{0};
  int64_t bytes = dtype_size(t.dtype);
  for (int64_t size : t.shape.sizes())
    if (__builtin_mul_overflow(bytes, size, &bytes))
      return make_error("partition: a value saved for the backward has more than 2^63 bytes: ", value_text(v));
  return bytes;
}

}  // namespace

std::vector<int> backward_items(const JointView& view, const std::vector<const Value*>& saved) {
  const std::vector<bool> needed = needed_items(view, gradient_outputs(view), saved_and_tangents(view, saved));
  std::vector<int> items;
  for (int i = 0; i < view.size(); ++i) {
    if (!needed[static_cast<size_t>(i)]) continue;
    KILN_CHECK(view.item(i).node != nullptr)
        << "partition: the backward needs input %" << view.item(i).input->name() << ", which is not saved";
    items.push_back(i);
  }
  return items;
}

std::vector<const Value*> used_saved_values(const JointView& view, const std::vector<const Value*>& saved) {
  std::unordered_set<const Value*> read;
  for (const Value* g : gradient_outputs(view)) read.insert(g);
  for (int i : backward_items(view, saved))
    for (const Operand& o : view.item(i).node->operands())
      if (o.value) read.insert(o.value);
  std::vector<const Value*> used;
  std::unordered_set<const Value*> seen;
  for (const Value* v : saved)
    if (read.contains(v) && seen.insert(v).second) used.push_back(v);
  return used;
}

Expected<Partition> extract_partition(const JointView& view, const std::vector<const Value*>& saved_in) {
  const JointGraph& joint = view.joint();
  const Graph& g = *joint.graph;
  const std::vector<const Value*> saved = used_saved_values(view, saved_in);
  const std::vector<int> bw_items = backward_items(view, saved);

  Partition p;
  p.num_forward_outputs = joint.num_forward_outputs;
  p.num_saved = static_cast<int>(saved.size());

  // Forward: primals -> forward outputs and saved values.
  p.forward = std::make_unique<Graph>(g.name() + "_forward");
  ValueMap fmap;
  for (int i = 0; i < joint.num_primals; ++i) {
    const Value* in = g.input(i);
    fmap[in] = p.forward->add_input(in->name(), in->type(), in->role());
  }
  std::vector<const Value*> fw_targets(g.outputs().begin(), g.outputs().begin() + joint.num_forward_outputs);
  fw_targets.insert(fw_targets.end(), saved.begin(), saved.end());
  const std::vector<bool> fw_needed = needed_items(view, fw_targets, {});
  for (int i = 0; i < view.size(); ++i)
    if (fw_needed[static_cast<size_t>(i)] && view.item(i).node != nullptr)
      copy_node(*view.item(i).node, *p.forward, fmap);
  std::vector<Value*> fouts;
  for (const Value* v : fw_targets) fouts.push_back(fmap.at(v));
  p.forward->set_outputs(std::move(fouts));

  // Backward: saved values and tangents -> gradients.
  p.backward = std::make_unique<Graph>(g.name() + "_backward");
  ValueMap bmap;
  for (size_t k = 0; k < saved.size(); ++k) {
    const Value* v = saved[k];
    const std::string name = v->is_input() ? v->name() : "saved" + std::to_string(k);
    bmap[v] = p.backward->add_input(name, v->type(), InputRole::Input);
    KILN_ASSIGN_OR_RETURN(int64_t bytes, static_bytes(v));
    p.saved.push_back({name, v->type(), bytes});
    if (__builtin_add_overflow(p.saved_bytes, bytes, &p.saved_bytes))
      return make_error("partition: the values saved for the backward total more than 2^63 bytes (the last one: ",
                        value_text(v), ")");
  }
  for (Value* in : g.inputs())
    if (in->role() == InputRole::Tangent) bmap[in] = p.backward->add_input(in->name(), in->type(), InputRole::Tangent);
  for (int i : autograd_engine_order(view, bw_items)) {
    const Node* copy = copy_node(*view.item(i).node, *p.backward, bmap);
    if (!fw_needed[static_cast<size_t>(i)]) continue;
    ++p.recomputed_nodes;
    p.recomputed.push_back(copy);
  }
  std::vector<Value*> bouts;
  for (const Value* v : gradient_outputs(view)) bouts.push_back(bmap.at(v));
  p.backward->set_outputs(std::move(bouts));

  Status fv = verify_graph(*p.forward), bv = verify_graph(*p.backward);
  KILN_CHECK(fv.is_ok()) << "partition: forward graph does not verify: " << fv.error().to_string();
  KILN_CHECK(bv.is_ok()) << "partition: backward graph does not verify: " << bv.error().to_string();
  return p;
}

}  // namespace kiln::partitioning
