// Dtype rules of the ops that convert a scalar argument to an integer result's dtype: the fill
// values of masked_fill, fill_, scatter and constant_pad_nd, addcmul's value, addmm's and
// baddbmm's alpha and beta, hardtanh's bounds. torch converts each with c10's checked_convert,
// so a value outside the dtype ("value cannot be converted to type int64_t without overflow")
// is an error and a finite float is truncated; the rules refuse here what the kernels, the loop
// IR and the generated code would otherwise each convert in their own way (a float outside
// int64 has no defined conversion in C++).
#include <initializer_list>
#include <string_view>
#include <vector>

#include "ops/type_rules.h"
#include "ops/type_rules_util.h"

namespace kiln {

namespace {

Status attrs_fit_dtype(const TypeCall& call, std::initializer_list<std::string_view> names, DType t) {
  for (std::string_view name : names) KILN_TRY(scalar_fits_dtype(call, call.attr_scalar(name), t));
  return Status::ok();
}

}  // namespace

// masked_fill, masked_fill_, fill_ and scatter take the value as an inline scalar operand.
Expected<std::vector<DType>> dtype_rule_fill_value(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<DType> t, dtype_rule_same(call));
  for (const TypeOperand& op : call.operands)
    if (!op.is_tensor() && !op.literal.is_none()) KILN_TRY(scalar_fits_dtype(call, op.literal, t[0]));
  return t;
}

Expected<std::vector<DType>> dtype_rule_constant_pad(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<DType> t, dtype_rule_same(call));
  KILN_TRY(attrs_fit_dtype(call, {"value"}, t[0]));
  return t;
}

Expected<std::vector<DType>> dtype_rule_addcmul(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<DType> t, dtype_rule_promote(call));
  KILN_TRY(attrs_fit_dtype(call, {"value"}, t[0]));
  return t;
}

Expected<std::vector<DType>> dtype_rule_scaled_matmul(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<DType> t, dtype_rule_promote_same(call));
  KILN_TRY(attrs_fit_dtype(call, {"beta", "alpha"}, t[0]));
  return t;
}

// hardtanh clamps an integer tensor to its bounds as int64 (torch's, so i8 with min_val=-1000
// is accepted), whatever the tensor's own integer dtype.
Expected<std::vector<DType>> dtype_rule_hardtanh(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<DType> t, dtype_rule_same_nonbool(call));
  if (is_integral(t[0])) KILN_TRY(attrs_fit_dtype(call, {"min_val", "max_val"}, DType::I64));
  return t;
}

}  // namespace kiln
