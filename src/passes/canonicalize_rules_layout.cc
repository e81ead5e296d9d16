// canonicalize's layout rules: transposes, permutes, reshapes, reduction dim lists and casts
// (see canonicalize.h for the forms chosen).
#include <algorithm>

#include "ops/op_call.h"
#include "passes/canonicalize_rules.h"

namespace kiln::canonicalize_detail {

namespace {

int operand_rank(const Node& n) { return n.operand(0).value->type().shape.rank(); }

// t(x) -> transpose(x, 0, 1) for a matrix x.
Match t_to_transpose(Node& n, GraphBuilder& b) {
  if (!n.operand(0).is_value() || operand_rank(n) != 2) return std::nullopt;
  return build_same_type(n, b, OpKind::Transpose, {n.operand(0)}, {{"dim0", int64_t{0}}, {"dim1", int64_t{1}}});
}

// The wrapped (dim0, dim1) of a transpose, ascending; nullopt when out of range.
std::optional<std::pair<int, int>> transpose_dims(const Node& n) {
  const OpCallBase call(n.op(), n.attrs());
  const std::optional<int> d0 = wrap_dim(call.attr_int("dim0"), operand_rank(n));
  const std::optional<int> d1 = wrap_dim(call.attr_int("dim1"), operand_rank(n));
  if (!d0 || !d1) return std::nullopt;
  return std::pair<int, int>{std::min(*d0, *d1), std::max(*d0, *d1)};
}

Match transpose_dims_sorted(Node& n, GraphBuilder& b) {
  std::optional<std::pair<int, int>> dims = transpose_dims(n);
  const OpCallBase call(n.op(), n.attrs());
  if (!dims || (call.attr_int("dim0") == dims->first && call.attr_int("dim1") == dims->second)) return std::nullopt;
  return build_same_type(n, b, OpKind::Transpose, {n.operand(0)},
                         {{"dim0", int64_t{dims->first}}, {"dim1", int64_t{dims->second}}});
}

RewriteRule transpose_of_transpose(const Mutating& mutating) {
  return {"transpose_of_transpose", {OpKind::Transpose}, [&mutating](Node& n, GraphBuilder&) -> Match {
            Node* inner = operand_producer(n, 0, OpKind::Transpose);
            if (!inner || !inner->operand(0).is_value()) return std::nullopt;
            std::optional<std::pair<int, int>> outer_dims = transpose_dims(n), inner_dims = transpose_dims(*inner);
            if (!outer_dims || outer_dims != inner_dims) return std::nullopt;
            return forward(n, inner->operand(0).value, mutating);
          }};
}

std::optional<std::vector<int64_t>> wrapped_dims(const std::vector<int64_t>& dims, int rank) {
  std::vector<int64_t> out;
  for (int64_t d : dims) {
    std::optional<int> w = wrap_dim(d, rank);
    if (!w) return std::nullopt;
    out.push_back(*w);
  }
  return out;
}

// permute(permute(x, p), q) -> permute(x, p[q[i]]).
Match permute_of_permute(Node& n, GraphBuilder& b) {
  Node* inner = operand_producer(n, 0, OpKind::Permute);
  if (!inner || !inner->operand(0).is_value()) return std::nullopt;
  const int rank = operand_rank(n);
  std::optional<std::vector<int64_t>> p = wrapped_dims(OpCallBase(inner->op(), inner->attrs()).attr_ints("dims"), rank);
  std::optional<std::vector<int64_t>> q = wrapped_dims(OpCallBase(n.op(), n.attrs()).attr_ints("dims"), rank);
  if (!p || !q || p->size() != q->size()) return std::nullopt;
  std::vector<int64_t> composed;
  for (int64_t i : *q) composed.push_back((*p)[static_cast<size_t>(i)]);
  return build_same_type(n, b, OpKind::Permute, {inner->operand(0)}, {{"dims", composed}});
}

// reshape(reshape(x, s1), s2) -> reshape(x, s2) for a statically shaped x.
RewriteRule reshape_of_reshape(const Mutating& mutating) {
  return {"reshape_of_reshape", {OpKind::Reshape}, [&mutating](Node& n, GraphBuilder& b) -> Match {
            Node* inner = operand_producer(n, 0, OpKind::Reshape);
            if (!inner || mutating.count(n.graph()) || !inner->operand(0).is_value() ||
                !inner->operand(0).value->type().shape.is_static())
              return std::nullopt;
            return build_same_type(n, b, OpKind::Reshape, {inner->operand(0)}, n.attrs());
          }};
}

// Reduction dim lists wrapped to non-negative and sorted (the set of dims is what counts).
Match reduce_dims_sorted(Node& n, GraphBuilder& b) {
  const AttrValue* dim = n.attrs().find("dim");
  if (!dim || !dim->is_ints() || !n.operand(0).is_value()) return std::nullopt;
  std::optional<std::vector<int64_t>> sorted = wrapped_dims(dim->as_ints(), std::max(operand_rank(n), 1));
  if (!sorted) return std::nullopt;
  std::sort(sorted->begin(), sorted->end());
  if (*sorted == dim->as_ints() || std::adjacent_find(sorted->begin(), sorted->end()) != sorted->end())
    return std::nullopt;
  AttrMap attrs = n.attrs();
  attrs.set("dim", *sorted);
  return build_same_type(n, b, n.op(), std::vector<Operand>(n.operands().begin(), n.operands().end()), attrs);
}

// True if every value of dtype `from` converts to `to` exactly (so a cast through `to`
// changes nothing before the next cast).
bool holds_exactly(DType from, DType to) {
  using D = DType;
  if (from == to || from == D::Bool) return true;
  auto in = [](D t, std::initializer_list<D> set) { return std::find(set.begin(), set.end(), t) != set.end(); };
  switch (from) {
    case D::U8: return in(to, {D::I16, D::I32, D::I64, D::F16, D::BF16, D::F32, D::F64});
    case D::I8: return in(to, {D::I16, D::I32, D::I64, D::F16, D::BF16, D::F32, D::F64});
    case D::I16: return in(to, {D::I32, D::I64, D::F32, D::F64});
    case D::I32: return in(to, {D::I64, D::F64});
    case D::F16:
    case D::BF16: return in(to, {D::F32, D::F64});
    case D::F32: return to == D::F64;
    default: return false;
  }
}

// _to_copy(_to_copy(x, d1), d2) -> _to_copy(x, d2) when d1 holds every value of x exactly.
Match cast_of_widening_cast(Node& n, GraphBuilder& b) {
  Node* inner = operand_producer(n, 0, OpKind::ToCopy);
  if (!inner || !inner->operand(0).is_value()) return std::nullopt;
  Value* x = inner->operand(0).value;
  if (!holds_exactly(x->type().dtype, inner->result()->type().dtype)) return std::nullopt;
  return build_same_type(n, b, OpKind::ToCopy, {x}, {{"dtype", n.result()->type().dtype}});
}

}  // namespace

std::vector<RewriteRule> canonicalize_layout_rules(const Mutating& mutating) {
  using K = OpKind;
  return {
      {"t_to_transpose", {K::T}, t_to_transpose},
      {"transpose_dims_sorted", {K::Transpose}, transpose_dims_sorted},
      transpose_of_transpose(mutating),
      {"permute_of_permute", {K::Permute}, permute_of_permute},
      reshape_of_reshape(mutating),
      {"reduce_dims_sorted",
       {K::Sum, K::Mean, K::Amax, K::Amin, K::Var, K::Std, K::Logsumexp, K::Any, K::All},
       reduce_dims_sorted},
      {"cast_of_widening_cast", {K::ToCopy}, cast_of_widening_cast},
  };
}

}  // namespace kiln::canonicalize_detail
