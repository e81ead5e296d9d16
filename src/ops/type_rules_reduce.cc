// Shape and dtype rules of reductions. Which dims a reduction reduces is decided once, by
// reduced_dims(), and shared with the kernels.
#include <vector>

#include "ops/reduce_dims.h"
#include "ops/type_rules.h"
#include "support/check.h"

namespace kiln {

namespace {

const TensorType& self_type(const TypeCall& call) {
  KILN_CHECK(!call.operands.empty() && call.operands[0].is_tensor()) << call.name() << ": operand 0 is not a tensor";
  return *call.operands[0].type;
}

}  // namespace

Expected<std::vector<bool>> reduced_dims(const OpCallBase& call, int rank) {
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  std::optional<std::vector<int64_t>> dims;
  switch (call.op()) {
    case OpKind::Prod:
    case OpKind::Argmax:
    case OpKind::Argmin:
      if (std::optional<int64_t> d = call.attr_opt_int("dim")) dims = std::vector<int64_t>{*d};
      break;
    default: dims = call.attr_opt_ints("dim");
  }
  // any/all reduce nothing for an explicit empty list; the others reduce everything.
  const bool empty_means_all = call.op() != OpKind::Any && call.op() != OpKind::All;
  if (!dims || (dims->empty() && empty_means_all)) {
    reduced.assign(reduced.size(), true);
    return reduced;
  }
  for (int64_t d : *dims) {
    // A 0-d tensor accepts dim 0 and -1, like torch.
    std::optional<int> w = wrap_dim(d, rank == 0 ? 1 : rank);
    if (!w) return make_error(call.name(), ": dim ", d, " is out of range for a tensor of rank ", rank);
    if (rank == 0) continue;
    if (reduced[static_cast<size_t>(*w)])
      return make_error(call.name(), ": dim ", *w, " appears multiple times in the list of dims");
    reduced[static_cast<size_t>(*w)] = true;
  }
  return reduced;
}

Expected<std::vector<Shape>> shape_rule_reduce(const TypeCall& call) {
  const Shape& in = self_type(call).shape;
  KILN_ASSIGN_OR_RETURN(std::vector<bool> reduced, reduced_dims(call, in.rank()));
  const bool keepdim = call.attr_bool("keepdim");
  std::vector<Dim> out;
  for (int i = 0; i < in.rank(); ++i) {
    if (!reduced[static_cast<size_t>(i)])
      out.push_back(in[i]);
    else if (keepdim)
      out.push_back(Dim(1));
  }
  return std::vector<Shape>{Shape(std::move(out))};
}

// sum, prod, cumsum: integers and bool accumulate in i64 unless a dtype is given.
Expected<std::vector<DType>> dtype_rule_sum(const TypeCall& call) {
  if (std::optional<DType> d = call.attr_dtype("dtype")) return std::vector<DType>{*d};
  const DType t = self_type(call).dtype;
  return std::vector<DType>{is_floating(t) ? t : DType::I64};
}

// cumsum's dtype rule is sum's, but torch has no cumsum into bool ("not implemented for 'Bool'").
Expected<std::vector<DType>> dtype_rule_cumsum(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<DType> t, dtype_rule_sum(call));
  if (t[0] == DType::Bool) return make_error(call.name(), ": not implemented for 'bool' (pass dtype=i64)");
  return t;
}

Expected<std::vector<DType>> dtype_rule_mean(const TypeCall& call) {
  const DType t = call.attr_dtype("dtype").value_or(self_type(call).dtype);
  if (!is_floating(t)) {
    return make_error(call.name(), ": could not infer output dtype. Input dtype must be floating, got ", dtype_name(t),
                      " (pass dtype=f32 to average integers)");
  }
  return std::vector<DType>{t};
}

// any, all: bool, except that u8 input gives u8 (PyTorch keeps uint8 for compatibility).
Expected<std::vector<DType>> dtype_rule_any_all(const TypeCall& call) {
  return std::vector<DType>{self_type(call).dtype == DType::U8 ? DType::U8 : DType::Bool};
}

Expected<std::vector<DType>> dtype_rule_index(const TypeCall& call) {
  if (self_type(call).dtype == DType::Bool) return make_error(call.name(), ": does not support bool input");
  return std::vector<DType>{DType::I64};
}

}  // namespace kiln
