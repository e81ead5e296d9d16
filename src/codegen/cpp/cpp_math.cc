#include "codegen/cpp/cpp_math.h"

#include "support/check.h"

namespace kiln::cpp {

namespace {

bool has_rounding(const AttrMap& attrs) { return attrs.find("rounding_mode") != nullptr; }

bool floor_mode(const AttrMap& attrs) {
  const AttrValue* m = attrs.find("rounding_mode");
  return m && m->is_string() && m->as_string() == "floor";
}

// The prelude function that rounds a value of the compute type to dtype `out`, as the
// evaluator's round_to_dtype does before a rounding division truncates or floors.
std::string rounding_function(DType out, bool single) {
  switch (out) {
    case DType::F16: return single ? "kiln_f16_round" : "kiln_f16_round_d";
    case DType::BF16: return single ? "kiln_bf16_round" : "kiln_bf16_round_d";
    case DType::F32: return single ? "kiln_keepf" : "kiln_f32_round_d";
    default: return single ? "kiln_keepf" : "kiln_keep";
  }
}

std::string call(const std::string& f, const std::vector<std::string>& a) {
  std::string s = f + "(";
  for (size_t i = 0; i < a.size(); ++i) s += (i ? ", " : "") + a[i];
  return s + ")";
}

}  // namespace

bool is_math_float_op(OpKind op, const AttrMap& attrs) {
  switch (op) {
    case OpKind::Log1p: case OpKind::Expm1: case OpKind::Erf: case OpKind::Tan: case OpKind::Atan: case OpKind::Atan2:
    case OpKind::Sign: case OpKind::Floor: case OpKind::Ceil: case OpKind::Round: case OpKind::Trunc:
    case OpKind::Remainder: case OpKind::Fmod: case OpKind::Lerp:
      return true;
    case OpKind::Div:
      return has_rounding(attrs);
    default:
      return false;
  }
}

bool is_math_int_op(OpKind op, const AttrMap& attrs) {
  switch (op) {
    case OpKind::Sign: case OpKind::Floor: case OpKind::Ceil: case OpKind::Round: case OpKind::Trunc:
    case OpKind::Remainder: case OpKind::Fmod: case OpKind::Pow: case OpKind::BitwiseAnd: case OpKind::BitwiseOr:
    case OpKind::BitwiseXor: case OpKind::BitwiseNot: case OpKind::BitwiseLeftShift: case OpKind::BitwiseRightShift:
      return true;
    case OpKind::Div:
      return has_rounding(attrs);
    default:
      return false;
  }
}

std::string math_float_expr(OpKind op, const std::vector<std::string>& a, bool single, DType out, const AttrMap& attrs) {
  const std::string one = single ? "1.0f" : "1.0", zero = single ? "0.0f" : "0.0";
  switch (op) {
    case OpKind::Log1p: return call(single ? "kiln_log1pf" : "std::log1p", a);
    case OpKind::Expm1: return call(single ? "kiln_expm1f" : "std::expm1", a);
    case OpKind::Erf: return call(single ? "kiln_erff" : "std::erf", a);
    case OpKind::Tan: return call("std::tan", a);
    case OpKind::Atan: return call("kiln_atan", a);
    case OpKind::Atan2: return call("std::atan2", a);
    // NaN and -0 give +0 (both comparisons are false).
    case OpKind::Sign:
      return "(" + a[0] + " > " + zero + " ? " + one + " : (" + a[0] + " < " + zero + " ? -" + one + " : " + zero + "))";
    case OpKind::Floor: return call("std::floor", a);
    case OpKind::Ceil: return call("std::ceil", a);
    case OpKind::Round: return call("std::nearbyint", a);  // half to even in the default rounding mode
    case OpKind::Trunc: return call("std::trunc", a);
    case OpKind::Remainder: return call("kiln_remainder", a);
    case OpKind::Fmod: return call("std::fmod", a);
    case OpKind::Lerp: return call("kiln_lerp", a);
    case OpKind::Div: {
      const std::string rnd = rounding_function(out, single);
      if (floor_mode(attrs)) return "kiln_div_floor(" + a[0] + ", " + a[1] + ", " + rnd + ")";
      const std::string q = "(" + a[0] + " / " + a[1] + ")";
      return "std::trunc(" + (rnd == "kiln_keepf" || rnd == "kiln_keep" ? q : rnd + q) + ")";
    }
    default: KILN_UNREACHABLE("not a floating math op");
  }
}

std::string math_int_expr(OpKind op, const std::vector<std::string>& a, DType out, const AttrMap& attrs) {
  const std::string bits = std::to_string(out == DType::Bool ? 1 : dtype_size(out) * 8);
  switch (op) {
    case OpKind::Sign: return "((int64_t)(" + a[0] + " > 0) - (int64_t)(" + a[0] + " < 0))";
    case OpKind::Floor: case OpKind::Ceil: case OpKind::Round: case OpKind::Trunc: return a[0];
    case OpKind::Remainder: return call("kiln_remainder_i64", a);
    case OpKind::Fmod: return call("kiln_fmod_i64", a);
    case OpKind::Div: return call(floor_mode(attrs) ? "kiln_div_floor_i64" : "kiln_div_trunc_i64", a);
    case OpKind::Pow: return call("kiln_pow_i64", a);
    case OpKind::BitwiseAnd: return "(" + a[0] + " & " + a[1] + ")";
    case OpKind::BitwiseOr: return "(" + a[0] + " | " + a[1] + ")";
    case OpKind::BitwiseXor: return "(" + a[0] + " ^ " + a[1] + ")";
    case OpKind::BitwiseNot: return out == DType::Bool ? "(int64_t)(" + a[0] + " == 0)" : "(~" + a[0] + ")";
    case OpKind::BitwiseLeftShift: return "kiln_shl(" + a[0] + ", " + a[1] + ", " + bits + ")";
    case OpKind::BitwiseRightShift: return "kiln_shr(" + a[0] + ", " + a[1] + ", " + bits + ")";
    default: KILN_UNREACHABLE("not an integer math op");
  }
}

}  // namespace kiln::cpp
