// mark_unique_indices: proves an index a randperm prefix, then sets unique_indices.
#include "passes/mark_unique_indices.h"

#include <optional>

#include "ops/op_call.h"
#include "passes/subgraph_walk.h"

namespace kiln {

namespace {

// n when `index` holds distinct integers in [0, n): randperm(n) or a slice of it from 0 with
// step 1 along dim 0.
std::optional<int64_t> randperm_prefix_bound(const Value* index) {
  if (!index || index->is_input() || !is_integral(index->type().dtype) || index->type().shape.rank() != 1)
    return std::nullopt;
  const Node* n = index->producer();
  if (n->op() == OpKind::Slice) {
    const OpCallBase call(n->op(), n->attrs());
    const std::optional<int64_t> start = call.attr_opt_int("start");
    if (call.attr_int("dim") != 0 || (start && *start != 0) || call.attr_int("step") != 1) return std::nullopt;
    if (!n->operand(0).is_value() || n->operand(0).value->is_input()) return std::nullopt;
    n = n->operand(0).value->producer();
  }
  if (n->op() != OpKind::Randperm) return std::nullopt;
  return OpCallBase(n->op(), n->attrs()).attr_int("n");
}

// Whether dim `dim` of `x` is static and at least n.
bool dim_holds(const Value* x, int64_t dim, int64_t n) {
  const Shape& shape = x->type().shape;
  const int64_t rank = shape.rank();
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) return false;
  const Dim& d = shape[static_cast<int>(dim)];
  return d.is_static() && n <= d.value();
}

// The single index tensor of index / index_put (operands self, indices..., [values]) when it
// is the only one and sits at dim 0.
const Value* single_leading_index(const Node& node) {
  const int end = node.num_operands() - (node.op() == OpKind::IndexPut ? 1 : 0);
  if (end != 2 || !node.operand(1).is_value()) return nullptr;
  return node.operand(1).value;
}

bool provably_unique(const Node& node) {
  if (!node.operand(0).is_value()) return false;
  const Value* x = node.operand(0).value;
  if (node.op() == OpKind::IndexAdd) {
    const std::optional<int64_t> n =
        randperm_prefix_bound(node.operand(1).is_value() ? node.operand(1).value : nullptr);
    return n && dim_holds(x, OpCallBase(node.op(), node.attrs()).attr_int("dim"), *n);
  }
  const std::optional<int64_t> n = randperm_prefix_bound(single_leading_index(node));
  return n && dim_holds(x, 0, *n);
}

}  // namespace

PassResult mark_unique_indices(Graph& g) {
  PassResult r;
  int64_t marked = run_in_subgraphs(g, mark_unique_indices, "marked");
  for (Node* node : g.nodes()) {
    if (node->op() != OpKind::Index && node->op() != OpKind::IndexPut && node->op() != OpKind::IndexAdd) continue;
    if (OpCallBase(node->op(), node->attrs()).attr_bool("unique_indices") || !provably_unique(*node)) continue;
    node->mutable_attrs().set("unique_indices", true);
    ++marked;
  }
  r.counters["marked"] = marked;
  r.changed = marked > 0;
  return r;
}

}  // namespace kiln
