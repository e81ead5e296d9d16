// Dtype rules of the elementwise ops (unary, binary, three-operand, _to_copy) and the shape
// and dtype rules of in-place ops. Each follows what PyTorch's CPU kernels accept.
#include <array>
#include <vector>

#include "ops/type_rules.h"
#include "ops/type_rules_util.h"
#include "support/check.h"

namespace kiln {

namespace {

const TensorType& self_type(const TypeCall& call) {
  KILN_CHECK(!call.operands.empty() && call.operands[0].is_tensor()) << call.name() << ": operand 0 is not a tensor";
  return *call.operands[0].type;
}

// clamp's bounds are attributes, but they take part in promotion like inline scalars.
DType clamp_result_type(const TypeCall& call) {
  std::array<TypeOperand, 3> ops;
  ops[0].type = self_type(call);
  ops[1].literal = call.attr_scalar("min");
  ops[2].literal = call.attr_scalar("max");
  return result_type(ops);
}

Expected<DType> div_result_type(const TypeCall& call) {
  const DType t = result_type(call.operands);
  const std::optional<std::string> mode = call.attr_opt_str("rounding_mode");
  if (!mode) return is_floating(t) ? t : kDefaultFloat;
  if (*mode != "trunc" && *mode != "floor")
    return make_error(call.name(), ": rounding_mode must be \"trunc\" or \"floor\", not \"", *mode, "\"");
  if (t == DType::Bool) return make_error(call.name(), ": rounding division is not implemented for bool");
  return t;
}

// torch's can_cast: a result may be written into a tensor of a lower category only if it is
// not of a higher category (float into int, int into bool are refused).
bool can_cast(DType from, DType to) { return dtype_category(from) <= dtype_category(to); }

}  // namespace

Expected<std::vector<DType>> dtype_rule_float(const TypeCall& call) {
  const DType t = self_type(call).dtype;
  return std::vector<DType>{is_floating(t) ? t : kDefaultFloat};
}

Expected<std::vector<DType>> dtype_rule_bool(const TypeCall&) { return std::vector<DType>{DType::Bool}; }

Expected<std::vector<DType>> dtype_rule_same_int_or_bool(const TypeCall& call) {
  const DType t = self_type(call).dtype;
  if (is_floating(t))
    return make_error(call.name(), ": not implemented for '", dtype_name(t), "' (integers and bool only)");
  return std::vector<DType>{t};
}

Expected<std::vector<DType>> dtype_rule_promote_nonbool(const TypeCall& call) {
  const DType t = result_type(call.operands);
  if (t == DType::Bool) return make_error(call.name(), ": not supported for bool operands");
  return std::vector<DType>{t};
}

Expected<std::vector<DType>> dtype_rule_div(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(DType t, div_result_type(call));
  return std::vector<DType>{t};
}

Expected<std::vector<DType>> dtype_rule_promote_float(const TypeCall& call) {
  const DType t = result_type(call.operands);
  return std::vector<DType>{is_floating(t) ? t : kDefaultFloat};
}

Expected<std::vector<DType>> dtype_rule_promote_float_only(const TypeCall& call) {
  // The tensors decide: a float literal does not make lerp or addcdiv of int tensors valid.
  std::vector<TypeOperand> tensors;
  for (const TypeOperand& op : call.operands)
    if (op.is_tensor()) tensors.push_back(op);
  const DType tensor_type = result_type(tensors);
  if (!is_floating(tensor_type))
    return make_error(call.name(), ": not implemented for '", dtype_name(tensor_type), "' (floating operands only)");
  const DType t = result_type(call.operands);
  return std::vector<DType>{t};
}

Expected<std::vector<DType>> dtype_rule_compare(const TypeCall&) { return std::vector<DType>{DType::Bool}; }

Expected<std::vector<DType>> dtype_rule_promote_int_or_bool(const TypeCall& call) {
  const DType t = result_type(call.operands);
  if (is_floating(t))
    return make_error(call.name(), ": not implemented for '", dtype_name(t), "' (integers and bool only)");
  return std::vector<DType>{t};
}

Expected<std::vector<DType>> dtype_rule_promote_int(const TypeCall& call) {
  const DType t = result_type(call.operands);
  if (!is_integral(t)) return make_error(call.name(), ": not implemented for '", dtype_name(t), "' (integers only)");
  return std::vector<DType>{t};
}

Expected<std::vector<DType>> dtype_rule_where(const TypeCall& call) {
  const DType c = self_type(call).dtype;
  if (c != DType::Bool) return make_error(call.name(), ": condition (operand 0) must be bool, not ", dtype_name(c));
  return std::vector<DType>{result_type(call.operands.subspan(1))};
}

Expected<std::vector<DType>> dtype_rule_clamp(const TypeCall& call) {
  if (call.attr_scalar("min").is_none() && call.attr_scalar("max").is_none())
    return make_error(call.name(), ": at least one of 'min' or 'max' must not be none");
  return std::vector<DType>{clamp_result_type(call)};
}

Expected<std::vector<DType>> dtype_rule_to_copy(const TypeCall& call) {
  return std::vector<DType>{call.attr_dtype("dtype").value_or(self_type(call).dtype)};
}

// The in-place op computes what its functional form would, then casts into operand 0.
Expected<std::vector<DType>> dtype_rule_inplace(const TypeCall& call) {
  const DType self = self_type(call).dtype;
  DType result = self;
  switch (call.op()) {
    case OpKind::AddInplace:
    case OpKind::MulInplace: result = result_type(call.operands); break;
    case OpKind::SubInplace:
      result = result_type(call.operands);
      if (result == DType::Bool) return make_error(call.name(), ": not supported for bool operands");
      break;
    case OpKind::DivInplace: {
      KILN_ASSIGN_OR_RETURN(result, div_result_type(call));
      break;
    }
    case OpKind::ReluInplace:
      if (self == DType::Bool) return make_error(call.name(), ": not supported for bool tensors");
      break;
    case OpKind::ClampInplace: {
      KILN_ASSIGN_OR_RETURN(std::vector<DType> r, dtype_rule_clamp(call));
      result = r[0];
      break;
    }
    default: KILN_UNREACHABLE("dtype_rule_inplace used by " << call.name());
  }
  if (!can_cast(result, self)) {
    return make_error(call.name(), ": result type ", dtype_name(result), " can't be cast to the desired output type ",
                      dtype_name(self));
  }
  return std::vector<DType>{self};
}

// Operand 0 is written in place, so the other operands must broadcast to its shape exactly.
Expected<std::vector<Shape>> shape_rule_inplace(const TypeCall& call) {
  KILN_ASSIGN_OR_RETURN(std::vector<Shape> b, shape_rule_broadcast(call));
  return in_place_shape(call, std::move(b));
}

}  // namespace kiln
