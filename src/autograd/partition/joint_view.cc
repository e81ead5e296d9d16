#include "autograd/partition/joint_view.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "autograd/partition/op_categories.h"
#include "support/check.h"

namespace kiln::partitioning {

namespace {

void sort_unique(std::vector<int>& v) {
  // Not the ranges forms: clang 14 cannot instantiate std::ranges::unique's subrange from
  // libstdc++ 12 (a clang build of the whole tree stopped here).
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

JointView::JointView(const JointGraph& joint) : joint_(joint) {
  const Graph& g = *joint.graph;
  std::unordered_map<const Value*, int>& item_of_value = item_of_value_;
  for (Value* in : g.inputs()) {
    Item it;
    it.input = in;
    it.values = {in};
    it.is_primal = in->role() != InputRole::Tangent;
    it.is_param = in->role() == InputRole::Param;
    it.in_tangent_closure = !it.is_primal;
    item_of_value[in] = static_cast<int>(items_.size());
    items_.push_back(std::move(it));
  }
  for (Node* n : g.nodes()) {
    Item it;
    it.node = n;
    for (Value* r : n->results()) {
      it.values.push_back(r);
      item_of_value[r] = static_cast<int>(items_.size());
    }
    for (const Operand& o : n->operands())
      if (o.value) it.operands.push_back(item_of_value.at(o.value));
    sort_unique(it.operands);
    const int self = static_cast<int>(items_.size());
    for (int op : it.operands) {
      items_[static_cast<size_t>(op)].users.push_back(self);
      it.in_tangent_closure |= items_[static_cast<size_t>(op)].in_tangent_closure;
    }
    items_.push_back(std::move(it));
  }
  for (Item& it : items_) sort_unique(it.users);

  // required_bw: the tangent closure plus the producers of gradient outputs.
  const std::vector<Value*>& outs = g.outputs();
  for (Item& it : items_) {
    it.required_bw = it.in_tangent_closure && it.node != nullptr;
    has_backward_ |= it.required_bw;
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    Item& it = items_[static_cast<size_t>(item_of_value.at(outs[k]))];
    it.is_graph_output = true;
    if (static_cast<int>(k) >= joint.num_forward_outputs) it.required_bw = true;
  }

  // required_fw: ancestors of the forward outputs (every primal input counts, as in the
  // reference's forward-only graph, which has a placeholder for each).
  std::vector<int> stack;
  for (int k = 0; k < joint.num_forward_outputs; ++k) stack.push_back(item_of_value.at(outs[static_cast<size_t>(k)]));
  for (size_t i = 0; i < items_.size(); ++i)
    if (items_[i].is_primal) stack.push_back(static_cast<int>(i));
  while (!stack.empty()) {
    Item& it = items_[static_cast<size_t>(stack.back())];
    stack.pop_back();
    if (it.required_fw) continue;
    it.required_fw = true;
    for (int op : it.operands) stack.push_back(op);
  }
  int order = 0;
  for (Item& it : items_)
    if (it.required_fw) it.fw_order = order++;

  // dist_from_bw: 0 outside the forward; else one more than the nearest user (a graph
  // output is infinitely far).
  for (size_t i = items_.size(); i-- > 0;) {
    Item& it = items_[i];
    if (!it.required_fw) {
      it.dist_from_bw = 0;
      continue;
    }
    int dist = kFarFromBackward;
    for (int u : it.users) dist = std::min(dist, items_[static_cast<size_t>(u)].dist_from_bw + 1);
    it.dist_from_bw = dist;
  }
}

int JointView::item_of(const Value* v) const {
  auto it = item_of_value_.find(v);
  KILN_CHECK(it != item_of_value_.end()) << "item_of: value not in the joint graph";
  return it->second;
}

std::vector<int> JointView::primals() const {
  std::vector<int> p;
  for (size_t i = 0; i < items_.size(); ++i)
    if (items_[i].is_primal) p.push_back(static_cast<int>(i));
  return p;
}

double JointView::bytes(const Value* v) {
  double numel = 1;
  for (const Dim& d : v->type().shape.dims()) numel *= d.is_static() ? static_cast<double>(d.value()) : 4096.0;
  return numel * static_cast<double>(dtype_size(v->type().dtype));
}

double JointView::bytes(int item) const {
  double total = 0;
  for (const Value* v : this->item(item).values) total += bytes(v);
  return total;
}

bool is_fusible(const JointView& view, int a, int b) {
  const Item &ia = view.item(a), &ib = view.item(b);
  if (ib.node != nullptr && ib.node->op() == OpKind::Cat) return true;
  if (ia.node == nullptr || ib.node == nullptr) return false;
  return is_fusible(*ia.node, *ib.node);
}

}  // namespace kiln::partitioning
