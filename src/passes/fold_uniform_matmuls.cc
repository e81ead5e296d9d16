#include "passes/fold_uniform_matmuls.h"

#include "ops/op_call.h"
#include "passes/dce.h"
#include "passes/value_forwarding.h"

namespace kiln {

namespace {

// The one-element value `v` views (through ops that only move or repeat elements), or null
// when `v` is not such a view.
Value* uniform_source(Value* v) {
  for (int depth = 0; v && depth < 64; ++depth) {
    const Shape& s = v->type().shape;
    if (s.is_static() && s.numel() == 1) return v;
    Node* p = v->producer();
    if (!p || p->num_results() != 1 || p->num_operands() < 1 || !p->operand(0).is_value()) return nullptr;
    switch (p->op()) {
      case OpKind::Expand:
      case OpKind::Reshape:
      case OpKind::View:
      case OpKind::Unsqueeze:
      case OpKind::Squeeze:
      case OpKind::Flatten:
      case OpKind::Transpose:
      case OpKind::Permute:
      case OpKind::T: v = p->operand(0).value; break;
      default: return nullptr;
    }
  }
  return nullptr;
}

bool is_product(OpKind op) { return op == OpKind::Matmul || op == OpKind::Mm || op == OpKind::Bmm; }

// sum(other * c, dim=[reduce_dim], keepdim), expanded to n's result: n's replacement.
std::optional<std::vector<Value*>> fold(Node& n, GraphBuilder& b, Value* other, Value* c, int reduce_dim) {
  const TensorType& out = n.result()->type();
  if (!out.shape.is_static() || !other->type().shape.is_static() || !is_floating(out.dtype)) return std::nullopt;
  if (other->type().dtype != out.dtype || c->type().dtype != out.dtype) return std::nullopt;
  // The sums' shape (other's, reduce_dim kept as 1) must broadcast to the result's.
  const Shape& os = other->type().shape;
  const int orank = os.rank(), rrank = out.shape.rank();
  if (orank > rrank) return std::nullopt;
  for (int d = 0; d < orank; ++d) {
    const int64_t e = d == reduce_dim ? 1 : os[d].value(), r = out.shape[rrank - orank + d].value();
    if (e != r && e != 1) return std::nullopt;
  }
  // c times each term, then the sums: the product's own terms, so an infinite c gives NaN where
  // the terms' signs differ (or one is 0), as the contraction does; c times the sums would give
  // inf (a uniform inf mat1 in addmm: the --grad long run's seed 4301108).
  Value* scalar = b.apply1(OpKind::Reshape, {c}, {{"shape", AttrValue::Ints{}}});
  Value* terms = b.apply1(OpKind::Mul, {other, scalar});
  Value* scaled = b.apply1(OpKind::Sum, {terms}, {{"dim", AttrValue::Ints{int64_t{reduce_dim}}}, {"keepdim", true}});
  AttrValue::Ints size;
  for (int d = 0; d < out.shape.rank(); ++d) size.push_back(out.shape[d].value());
  return std::vector<Value*>{b.apply1(OpKind::Expand, {scaled}, {{"size", size}})};
}

RewriteRule uniform_rule(const std::unordered_set<const Graph*>& mutating, bool left) {
  const char* name = left ? "uniform_left" : "uniform_right";
  return {name,
          {OpKind::Matmul, OpKind::Mm, OpKind::Bmm},
          [&mutating, left](Node& n, GraphBuilder& b) -> std::optional<std::vector<Value*>> {
            if (!is_product(n.op()) || mutating.count(n.graph()) || n.num_operands() != 2 || !n.operand(0).is_value() ||
                !n.operand(1).is_value())
              return std::nullopt;
            Value *a = n.operand(0).value, *bv = n.operand(1).value;
            if (a->type().shape.rank() < 2 || bv->type().shape.rank() < 2) return std::nullopt;
            Value* c = uniform_source(left ? a : bv);
            if (!c || uniform_source(left ? bv : a))
              return std::nullopt;  // both uniform: left to the other rule's twin
            Value* other = left ? bv : a;
            const int rank = other->type().shape.rank();
            return fold(n, b, other, c, left ? rank - 2 : rank - 1);
          }};
}

}  // namespace

Expected<PassResult> fold_uniform_matmuls(Graph& g, const RuleDriverOptions& options) {
  const std::unordered_set<const Graph*> mutating = graphs_with_mutation(g);
  RuleSet set{"fold-uniform-matmuls", {uniform_rule(mutating, true), uniform_rule(mutating, false)}};
  KILN_ASSIGN_OR_RETURN(PassResult result, apply_rules(g, set, options));
  if (result.changed) eliminate_dead_code(g);
  return result;
}

}  // namespace kiln
