#include "ops/schema_check.h"

namespace kiln {

namespace {

bool is_float_arg(ArgType t) { return t == ArgType::Float || t == ArgType::OptionalFloat; }

bool attr_fits(ArgType t, const AttrValue& v) {
  if (v.is_none()) return arg_type_is_optional(t);
  switch (t) {
    case ArgType::Scalar:
    case ArgType::OptionalScalar: return v.is_bool() || v.is_int() || v.is_float();
    case ArgType::Int:
    case ArgType::OptionalInt: return v.is_int();
    case ArgType::Ints:
    case ArgType::OptionalInts: return v.is_ints();
    case ArgType::SymInts: return v.is_ints() || v.is_sym_ints();
    case ArgType::SymScalar: return v.is_bool() || v.is_int() || v.is_float() || v.is_sym_int();
    case ArgType::Float:
    case ArgType::OptionalFloat: return v.is_float() || v.is_int();
    case ArgType::Bool: return v.is_bool();
    case ArgType::Str:
    case ArgType::OptionalStr: return v.is_string();
    case ArgType::OptionalDType: return v.is_dtype();
    default: return false;
  }
}

}  // namespace

std::string_view attr_kind_name(const AttrValue& v) {
  if (v.is_bool()) return "bool";
  if (v.is_int()) return "int";
  if (v.is_float()) return "float";
  if (v.is_string()) return "str";
  if (v.is_ints()) return "int[]";
  if (v.is_dtype()) return "ScalarType";
  if (v.is_sym_int()) return "SymInt";
  if (v.is_sym_ints()) return "SymInt[]";
  return "none";
}

Expected<AttrValue> fit_attr(const OpSchema& op, std::string_view name, const AttrValue& v) {
  const ArgSchema* arg = op.find_arg(name);
  if (!arg || !arg->is_attr()) return make_error("op '", op.name, "' has no attribute '", name, "'");
  if (!attr_fits(arg->type, v))
    return make_error("attribute '", name, "' of ", op.name, " expects ", arg_type_name(arg->type), ", got ",
                      attr_kind_name(v));
  if (is_float_arg(arg->type) && v.is_int()) return AttrValue(static_cast<double>(v.as_int()));
  return v;
}

Status check_required_attrs(const OpSchema& op, const AttrMap& attrs) {
  for (const ArgSchema* arg : op.attr_args())
    if (!arg->default_value && !attrs.find(arg->name))
      return make_error(op.name, " requires attribute '", arg->name, "'");
  return Status::ok();
}

Expected<std::vector<const ArgSchema*>> operand_args_of(const OpSchema& op, int num_operands) {
  KILN_ASSIGN_OR_RETURN(auto ranges, op.operand_ranges(num_operands));
  std::vector<const ArgSchema*> args = op.operand_args();
  std::vector<const ArgSchema*> out(static_cast<size_t>(num_operands), nullptr);
  for (size_t a = 0; a < ranges.size(); ++a)
    for (int i = ranges[a].first; i < ranges[a].second; ++i) out[static_cast<size_t>(i)] = args[a];
  return out;
}

Status check_attrs(const OpSchema& op, const AttrMap& attrs) {
  for (const auto& [name, value] : attrs.items()) KILN_TRY(fit_attr(op, name, value));
  return check_required_attrs(op, attrs);
}

Status check_operand_kind(const OpSchema& op, const ArgSchema& arg, bool is_tensor, const Scalar& literal) {
  if (is_tensor) return Status::ok();
  bool optional_tensor = arg.type == ArgType::OptionalTensor || arg.type == ArgType::OptionalTensorList;
  if (literal.is_none()) {
    if (optional_tensor) return Status::ok();
    return make_error("'none' not allowed for operand '", arg.name, "' of ", op.name, " (", arg_type_name(arg.type),
                      ")");
  }
  if (arg.type == ArgType::TensorOrScalar || arg.type == ArgType::TensorOrScalarList) return Status::ok();
  return make_error("literal operand not allowed for operand '", arg.name, "' of ", op.name, " (",
                    arg_type_name(arg.type), ")");
}

}  // namespace kiln
