// Shape rules of the indexing ops: index_select, gather, index (advanced indexing with
// tensor indices), masked_fill and embedding. Index values are checked by the kernels.
#include <algorithm>

#include "ops/type_rules.h"
#include "ops/type_rules_util.h"

namespace kiln {

namespace {

Expected<std::vector<Shape>> one(Shape s) { return std::vector<Shape>{std::move(s)}; }

bool is_index_dtype(DType t) { return t == DType::I64 || t == DType::I32; }

Status check_index_dtype(std::string_view op, const TensorType& t) {
  if (is_index_dtype(t.dtype)) return Status::ok();
  return make_error(op, ": expected dtype i32 or i64 for index, got ", dtype_name(t.dtype));
}

}  // namespace

Expected<std::vector<Shape>> shape_rule_index_select(const TypeCall& call) {
  Shape s = operand_type(call, 0).shape;
  const TensorType& index = operand_type(call, 1);
  KILN_TRY(check_index_dtype("index_select", index));
  if (index.shape.rank() > 1)
    return make_error("index_select: index is supposed to be a vector, got shape ", index.shape.to_string());
  KILN_ASSIGN_OR_RETURN(int d, wrap_dim_or_error("index_select", call.attr_int("dim"), s.rank()));
  const Dim n = index.shape.rank() == 0 ? Dim(1) : index.shape[0];
  if (s.rank() == 0) {
    if (!(n == 1)) return make_error("index_select: index to scalar can have only 1 value, got ", n.to_string());
    return one(s);
  }
  s[d] = n;
  return one(s);
}

Expected<std::vector<Shape>> shape_rule_gather(const TypeCall& call) {
  const Shape& s = operand_type(call, 0).shape;
  const TensorType& index = operand_type(call, 1);
  KILN_TRY(check_index_dtype("gather", index));
  KILN_ASSIGN_OR_RETURN(int d, wrap_dim_or_error("gather", call.attr_int("dim"), s.rank()));
  if (index.shape.rank() != s.rank() && !(std::max(index.shape.rank(), s.rank()) <= 1))
    return make_error("gather: index tensor must have the same number of dimensions as input tensor, got ",
                      index.shape.rank(), " and ", s.rank());
  for (int k = 0; k < std::min(s.rank(), index.shape.rank()); ++k) {
    if (k == d) continue;
    const Dim &have = s[k], &want = index.shape[k];
    if (have.is_static() && want.is_static() && want.value() > have.value())
      return make_error("gather: size does not match at dimension ", k, " expected index ", index.shape.to_string(),
                        " to be no larger than self ", s.to_string(), " apart from dimension ", d);
  }
  return one(index.shape);
}

Expected<std::vector<Shape>> shape_rule_index(const TypeCall& call) {
  const Shape& s = operand_type(call, 0).shape;
  const int n_idx = static_cast<int>(call.operands.size()) - 1;
  if (n_idx > s.rank())
    return make_error("index: too many indices for tensor of dimension ", s.rank(), " (got ", n_idx, ")");
  Shape bcast;
  bool any = false, adjacent = true;
  int first = -1, last = -1;
  for (int i = 0; i < n_idx; ++i) {
    const TypeOperand& o = call.operands[static_cast<size_t>(i + 1)];
    if (o.is_none()) continue;
    if (!o.is_tensor()) return make_error("index: index ", i, " must be a tensor or none");
    if (o.type->dtype == DType::Bool || o.type->dtype == DType::U8)
      return make_error("index: boolean mask indices give data-dependent shapes; use an integer index (index ", i, ")");
    KILN_TRY(check_index_dtype("index", *o.type));
    if (any) {
      auto b = broadcast_shapes(bcast, o.type->shape, call.guards);
      if (!b)
        return make_error("index: shape mismatch: indexing tensors could not be broadcast together with shapes ",
                          bcast.to_string(), " and ", o.type->shape.to_string());
      bcast = *b;
    } else {
      bcast = o.type->shape;
    }
    if (last >= 0 && last != i - 1) adjacent = false;
    if (first < 0) first = i;
    last = i;
    any = true;
  }
  if (!any) return one(s);
  // Indexed dims that are adjacent are replaced in place; otherwise the broadcast index
  // shape goes first (NumPy's rule).
  std::vector<Dim> out;
  if (adjacent) {
    out.assign(s.dims().begin(), s.dims().begin() + first);
    out.insert(out.end(), bcast.dims().begin(), bcast.dims().end());
    out.insert(out.end(), s.dims().begin() + last + 1, s.dims().end());
  } else {
    out = bcast.dims();
    for (int i = 0; i < s.rank(); ++i)
      if (i >= n_idx || call.operands[static_cast<size_t>(i + 1)].is_none()) out.push_back(s[i]);
  }
  return one(Shape(std::move(out)));
}

Expected<std::vector<Shape>> shape_rule_masked_fill(const TypeCall& call) {
  const Shape& s = operand_type(call, 0).shape;
  const TensorType& mask = operand_type(call, 1);
  if (mask.dtype != DType::Bool) return make_error(call.name(), ": expected a bool mask, got ", dtype_name(mask.dtype));
  const TypeOperand& value = call.operands[2];
  if (value.is_tensor() && value.type->shape.rank() != 0)
    return make_error(call.name(), ": only supports a 0-dimensional value tensor, but got tensor with ",
                      value.type->shape.rank(), " dimension(s)");
  auto b = broadcast_shapes(s, mask.shape, call.guards);
  if (!b)
    return make_error(call.name(), ": mask of shape ", mask.shape.to_string(), " is not broadcastable to ",
                      s.to_string());
  return one(*b);
}

Expected<std::vector<Shape>> shape_rule_masked_fill_inplace(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<Shape> b, shape_rule_masked_fill(call));
  return in_place_shape(call, std::move(b));
}

Expected<std::vector<Shape>> shape_rule_embedding(const TypeCall& call) {
  const Shape& w = operand_type(call, 0).shape;
  const TensorType& idx = operand_type(call, 1);
  if (w.rank() != 2) return make_error("embedding: weight must be 2-D, got shape ", w.to_string());
  KILN_TRY(check_index_dtype("embedding", idx));
  std::vector<Dim> out = idx.shape.dims();
  out.push_back(w[1]);
  return one(Shape(std::move(out)));
}

// index_add's alpha scales source in self's dtype: it must fit an integer one, as torch
// converts it (alpha=inf into i64 is an error there; a float alpha is truncated).
Expected<std::vector<DType>> dtype_rule_index_add(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<DType> t, dtype_rule_same(call));
  KILN_TRY(scalar_fits_dtype(call, call.attr_scalar("alpha"), t[0]));
  return t;
}

}  // namespace kiln
