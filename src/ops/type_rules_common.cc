// Broadcasting, torch.result_type, and the shape and dtype rules many ops share.
#include <algorithm>
#include <optional>
#include <span>

#include "ops/type_rules.h"
#include "support/check.h"

namespace kiln {

namespace {

// Two dims broadcast when equal (same size or same expression) or when one is the static 1.
// A symbolic dim against another dim is assumed equal to it (recorded as a guard); two
// different static sizes do not broadcast.
std::optional<Dim> broadcast_dim(const Dim& a, const Dim& b, std::vector<ShapeGuard>* guards) {
  if (a == b) return a;
  if (a == 1) return b;
  if (b == 1) return a;
  if (a.is_static() && b.is_static()) return std::nullopt;
  if (guards) guards->push_back(ShapeGuard{a.expr(), GuardRel::Eq, b.expr()});
  return b.is_static() ? b : a;
}

std::optional<DType> promote_opt(std::optional<DType> a, std::optional<DType> b) {
  if (!a) return b;
  if (!b) return a;
  return promote_types(*a, *b);
}

// c10's combine_categories: the higher-priority group wins unless the lower one is of a
// higher category (an int tensor with a float scalar gives a float).
std::optional<DType> combine_categories(std::optional<DType> higher, std::optional<DType> lower) {
  if (!higher) return lower;
  if (is_floating(*higher)) return higher;
  if (*higher == DType::Bool || (lower && is_floating(*lower))) return promote_opt(higher, lower);
  return higher;
}

const TensorType& tensor_operand(const TypeCall& call, size_t i) {
  KILN_CHECK(i < call.operands.size() && call.operands[i].is_tensor())
      << call.name() << ": operand " << i << " is not a tensor";
  return *call.operands[i].type;
}

}  // namespace

Expected<Shape> broadcast_shapes(const Shape& a, const Shape& b, std::vector<ShapeGuard>* guards) {
  const int rank = std::max(a.rank(), b.rank());
  std::vector<Dim> dims(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    const int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
    const Dim da = ia >= 0 ? a[ia] : Dim(1), db = ib >= 0 ? b[ib] : Dim(1);
    std::optional<Dim> d = broadcast_dim(da, db, guards);
    if (!d) {
      return make_error("shapes ", a.to_string(), " and ", b.to_string(), " do not broadcast: dim ", i, " is ",
                        da.to_string(), " vs ", db.to_string());
    }
    dims[static_cast<size_t>(i)] = *d;
  }
  return Shape(std::move(dims));
}

DType result_type(std::span<const TypeOperand> operands) {
  std::optional<DType> dim_result, zero_dim_result, scalar_result;
  for (const TypeOperand& op : operands) {
    if (op.is_tensor()) {
      std::optional<DType>& slot = op.type->shape.rank() == 0 ? zero_dim_result : dim_result;
      slot = promote_opt(slot, op.type->dtype);
    } else if (!op.literal.is_none()) {
      scalar_result = promote_opt(scalar_result, op.literal.natural_dtype());
    }
  }
  std::optional<DType> r = combine_categories(dim_result, combine_categories(zero_dim_result, scalar_result));
  KILN_CHECK(r.has_value()) << "result_type of no operands";
  return *r;
}

Expected<std::vector<Shape>> shape_rule_same(const TypeCall& call) {
  return std::vector<Shape>{tensor_operand(call, 0).shape};
}

Expected<std::vector<Shape>> shape_rule_broadcast(const TypeCall& call) {
  std::optional<Shape> acc;
  for (size_t i = 0; i < call.operands.size(); ++i) {
    const TypeOperand& op = call.operands[i];
    if (!op.is_tensor()) continue;
    if (!acc) {
      acc = op.type->shape;
      continue;
    }
    Expected<Shape> b = broadcast_shapes(*acc, op.type->shape, call.guards);
    if (!b) {
      return make_error(call.name(), ": operand ", i, " has shape ", op.type->shape.to_string(),
                        ", not broadcastable to ", acc->to_string(), " (", b.error().message(), ")");
    }
    acc = std::move(*b);
  }
  if (!acc) return make_error(call.name(), ": at least one operand must be a tensor");
  return std::vector<Shape>{std::move(*acc)};
}

Expected<std::vector<DType>> dtype_rule_same(const TypeCall& call) {
  return std::vector<DType>{tensor_operand(call, 0).dtype};
}

Expected<std::vector<DType>> dtype_rule_same_nonbool(const TypeCall& call) {
  const DType t = tensor_operand(call, 0).dtype;
  if (t == DType::Bool) return make_error(call.name(), ": not supported for bool tensors");
  return std::vector<DType>{t};
}

Expected<std::vector<DType>> dtype_rule_promote(const TypeCall& call) {
  return std::vector<DType>{result_type(call.operands)};
}

Expected<std::vector<DType>> dtype_rule_promote_same(const TypeCall& call) {
  std::optional<DType> first;
  for (size_t i = 0; i < call.operands.size(); ++i) {
    const TypeOperand& op = call.operands[i];
    if (!op.is_tensor()) continue;
    if (!first) {
      first = op.type->dtype;
    } else if (op.type->dtype != *first) {
      return make_error(call.name(), ": expected operands to have the same dtype, but operand ", i, " is ",
                        dtype_name(op.type->dtype), " and operand 0 is ", dtype_name(*first));
    }
  }
  return std::vector<DType>{result_type(call.operands)};
}

Expected<std::vector<DType>> dtype_rule_float_only(const TypeCall& call) {
  const DType t = tensor_operand(call, 0).dtype;
  if (!is_floating(t)) {
    return make_error(call.name(), ": not implemented for '", dtype_name(t), "' (operand 0 must be floating)");
  }
  return std::vector<DType>{t};
}

}  // namespace kiln
