#include "codegen/cpp/cpp_scalar.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <vector>

#include "codegen/cpp/cpp_math.h"
#include "core/element.h"
#include "lower/loop_ir.h"
#include "support/check.h"

namespace kiln::cpp {

namespace {

bool is_float_valued(DType t) { return t == DType::F32 || t == DType::F16 || t == DType::BF16; }

std::string paren(const std::string& x) { return "(" + x + ")"; }

// x of dtype `from` as an int64_t expression, as the evaluator's load_int / double_to_int64.
std::string as_int64(const std::string& x, DType from) {
  return is_floating(from) ? "kiln_f64_to_i64(" + x + ")" : x;
}

// x of dtype `from` as a float expression, as the evaluator's static_cast<float>(double).
std::string as_float(const std::string& x, DType from) {
  if (is_float_valued(from)) return x;
  if (from == DType::F64 || from == DType::Bool) return "(float)" + x;
  return "(float)(double)" + x;  // int64 -> double -> float, rounding as the evaluator does
}

std::string truthy(const std::string& x, DType t) { return t == DType::Bool ? x : paren(x + " != 0"); }

std::string compare_symbol(OpKind op) {
  switch (op) {
    case OpKind::Eq: return "==";
    case OpKind::Ne: return "!=";
    case OpKind::Lt: return "<";
    case OpKind::Le: return "<=";
    case OpKind::Gt: return ">";
    case OpKind::Ge: return ">=";
    default: KILN_UNREACHABLE("not a comparison");
  }
}

// A floating op in the compute type (float when `single`, else double).
std::string float_expr(OpKind op, const std::vector<std::string>& a, bool single) {
  const std::string one = single ? "1.0f" : "1.0", zero = single ? "0.0f" : "0.0";
  switch (op) {
    case OpKind::Neg: return "(-" + a[0] + ")";
    case OpKind::Abs: return "std::fabs(" + a[0] + ")";
    case OpKind::Exp: return (single ? "kiln_expf(" : "std::exp(") + a[0] + ")";
    case OpKind::Log: return "std::log(" + a[0] + ")";
    case OpKind::Sqrt: return "std::sqrt(" + a[0] + ")";
    case OpKind::Rsqrt: return "(" + one + " / std::sqrt(" + a[0] + "))";
    case OpKind::Reciprocal: return "(" + one + " / " + a[0] + ")";
    case OpKind::Sin: return "std::sin(" + a[0] + ")";
    case OpKind::Cos: return "std::cos(" + a[0] + ")";
    case OpKind::Tanh: return (single ? "kiln_tanhf(" : "std::tanh(") + a[0] + ")";
    case OpKind::Sigmoid: return "(" + one + " / (" + one + (single ? " + kiln_expf(-" : " + std::exp(-") + a[0] + ")))";
    // NaN and -0 pass through (the comparison is false), as torch's relu, a clamp at 0, passes
    // them; one compare and a masked move when vectorized.
    case OpKind::Relu: return "(" + a[0] + " < " + zero + " ? " + zero + " : " + a[0] + ")";
    case OpKind::Add: return "(" + a[0] + " + " + a[1] + ")";
    case OpKind::Sub: return "(" + a[0] + " - " + a[1] + ")";
    case OpKind::Mul: return "(" + a[0] + " * " + a[1] + ")";
    case OpKind::Div: return "(" + a[0] + " / " + a[1] + ")";
    case OpKind::Pow: return "kiln_pow(" + a[0] + ", " + a[1] + ")";
    case OpKind::Maximum: return "kiln_maximum(" + a[0] + ", " + a[1] + ")";
    case OpKind::Minimum: return "kiln_minimum(" + a[0] + ", " + a[1] + ")";
    default: KILN_UNREACHABLE("not a floating compute op");
  }
}

// An integer op in int64_t, wrapping (the evaluator's int_op).
std::string int_expr(OpKind op, const std::vector<std::string>& a) {
  switch (op) {
    case OpKind::Neg: return "kiln_wrap_neg(" + a[0] + ")";
    case OpKind::Abs: return "(" + a[0] + " < 0 ? kiln_wrap_neg(" + a[0] + ") : " + a[0] + ")";
    case OpKind::Relu: return "(" + a[0] + " > 0 ? " + a[0] + " : (int64_t)0)";
    case OpKind::Add: return "kiln_wrap_add(" + a[0] + ", " + a[1] + ")";
    case OpKind::Sub: return "kiln_wrap_sub(" + a[0] + ", " + a[1] + ")";
    case OpKind::Mul: return "kiln_wrap_mul(" + a[0] + ", " + a[1] + ")";
    case OpKind::Maximum: return "(" + a[0] + " < " + a[1] + " ? " + a[1] + " : " + a[0] + ")";
    case OpKind::Minimum: return "(" + a[1] + " < " + a[0] + " ? " + a[1] + " : " + a[0] + ")";
    default: KILN_UNREACHABLE("not an integer compute op");
  }
}

// x of dtype t in the floating compute type (float when `single`, else double).
std::string to_compute(const std::string& x, DType t, bool single) {
  if (single) return is_float_valued(t) ? x : "(float)" + x;
  return t == DType::F64 ? x : "(double)" + x;
}

}  // namespace

std::string_view value_type(DType t) {
  switch (t) {
    case DType::F64: return "double";
    case DType::F32: case DType::F16: case DType::BF16: return "float";
    case DType::Bool: return "bool";
    default: return "int64_t";
  }
}

std::string_view storage_type(DType t) {
  switch (t) {
    case DType::Bool: case DType::U8: return "uint8_t";
    case DType::I8: return "int8_t";
    case DType::I16: return "int16_t";
    case DType::I32: return "int32_t";
    case DType::I64: return "int64_t";
    case DType::F16: case DType::BF16: return "uint16_t";
    case DType::F32: return "float";
    case DType::F64: return "double";
  }
  KILN_UNREACHABLE("bad dtype");
}

std::string identifier(std::string_view name) {
  std::string s(name);
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return s;
}

std::string int_literal(int64_t v) {
  if (v == INT64_MIN) return "(-9223372036854775807 - 1)";
  return std::to_string(v);
}

std::string float_literal(double v, bool single) {
  const std::string f = single ? "f" : "";
  if (std::isnan(v)) return "__builtin_nan" + f + "(\"\")";
  if (std::isinf(v)) return std::string(v < 0 ? "-" : "") + "__builtin_inf" + f + "()";
  char buf[64];
  // Shortest text that reads back to the same float or double (std::to_chars round-trips).
  auto res = single ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v)) : std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + f;
}

std::string const_literal(const Scalar& v, DType t) {
  // Round exactly as the evaluator's `const` does: store in the dtype, load back.
  alignas(8) std::byte scratch[8] = {};
  if (v.is_float()) store_double(scratch, t, 0, v.to_double());
  else store_int(scratch, t, 0, v.to_int());
  if (t == DType::Bool) return load_int(scratch, t, 0) ? "true" : "false";
  if (!is_floating(t)) return int_literal(load_int(scratch, t, 0));
  return float_literal(load_double(scratch, t, 0), t != DType::F64);
}

std::string load_value(const std::string& elem, DType t) {
  switch (t) {
    case DType::Bool: return paren(elem + " != 0");
    case DType::F16: return "kiln_f16_to_f32(" + elem + ")";
    case DType::BF16: return "kiln_bf16_to_f32(" + elem + ")";
    default: return elem;
  }
}

std::string store_value(const std::string& x, DType from, DType to) {
  switch (to) {
    case DType::Bool: return "(uint8_t)" + truthy(x, from);
    case DType::I64: return as_int64(x, from);
    case DType::F16: return "kiln_f32_to_f16(" + as_float(x, from) + ")";
    case DType::BF16: return "kiln_f32_to_bf16(" + as_float(x, from) + ")";
    case DType::F32: return as_float(x, from);
    case DType::F64: return from == DType::F64 ? x : "(double)" + x;
    default: return "(" + std::string(storage_type(to)) + ")" + paren(as_int64(x, from));  // wraps, as store_int
  }
}

std::string convert_value(const std::string& x, DType from, DType to) {
  switch (to) {
    case DType::Bool: return truthy(x, from);
    case DType::F16: return "kiln_f16_round(" + as_float(x, from) + ")";
    case DType::BF16: return "kiln_bf16_round(" + as_float(x, from) + ")";
    case DType::F32: case DType::F64: case DType::I64: return store_value(x, from, to);
    default: return "(int64_t)" + store_value(x, from, to);
  }
}

std::string compute_expr(OpKind op, std::span<const std::string> args, std::span<const DType> arg_dtypes, DType out,
                         const AttrMap& attrs) {
  KILN_CHECK(static_cast<int>(args.size()) == compute_arity(op) && args.size() == arg_dtypes.size())
      << "compute op with " << args.size() << " operands";
  auto arg = [&](size_t i) { return args[i]; };
  if (op == OpKind::Where)
    return "(" + truthy(arg(0), arg_dtypes[0]) + " ? " + convert_value(arg(1), arg_dtypes[1], out) + " : " +
           convert_value(arg(2), arg_dtypes[2], out) + ")";
  if (op == OpKind::LogicalNot) return "(!" + truthy(arg(0), arg_dtypes[0]) + ")";
  if (op == OpKind::LogicalAnd || op == OpKind::LogicalOr || op == OpKind::LogicalXor)
    return "(" + truthy(arg(0), arg_dtypes[0]) +
           (op == OpKind::LogicalAnd ? " && " : op == OpKind::LogicalOr ? " || " : " != ") +
           truthy(arg(1), arg_dtypes[1]) + ")";
  if (op == OpKind::Isinf || op == OpKind::Isnan || op == OpKind::Isfinite) {
    if (!is_floating(arg_dtypes[0])) return op == OpKind::Isfinite ? "true" : "false";
    return std::string(op == OpKind::Isinf ? "std::isinf(" : op == OpKind::Isnan ? "std::isnan(" : "std::isfinite(") +
           arg(0) + ")";
  }
  bool float_path = false, all_single = true;
  for (DType t : arg_dtypes) {
    float_path = float_path || is_floating(t);
    all_single = all_single && is_float_valued(t);
  }
  // Floating work is in float when every operand (and the result, if floating) is held in
  // float; in double otherwise (the evaluator's double, exact for integer operands).
  const bool single = all_single && (is_float_valued(out) || !is_floating(out));
  std::vector<std::string> a;
  if (compute_returns_bool(op)) {
    for (size_t i = 0; i < args.size(); ++i) a.push_back(float_path ? to_compute(arg(i), arg_dtypes[i], single) : arg(i));
    return "(" + a[0] + " " + compare_symbol(op) + " " + a[1] + ")";
  }
  const ComputeDomain domain = compute_domain(op, attrs);
  if (domain == ComputeDomain::Float || (float_path && domain == ComputeDomain::Any)) {
    for (size_t i = 0; i < args.size(); ++i) a.push_back(to_compute(arg(i), arg_dtypes[i], single));
    const std::string e = is_math_float_op(op, attrs) ? math_float_expr(op, a, single, out, attrs) : float_expr(op, a, single);
    const DType computed = single ? DType::F32 : DType::F64;
    if (!is_floating(out)) return convert_value(e, computed, out);
    // Floating results stay unrounded (f16 in float) until a cast or store, as in the evaluator.
    return value_type(out) == value_type(computed) ? e : "(" + std::string(value_type(out)) + ")" + e;
  }
  for (size_t i = 0; i < args.size(); ++i)
    a.push_back(arg_dtypes[i] == DType::Bool ? "(int64_t)" + arg(i) : as_int64(arg(i), arg_dtypes[i]));
  const std::string e = is_math_int_op(op, attrs) ? math_int_expr(op, a, out, attrs) : int_expr(op, a);
  return convert_value(e, DType::I64, out);  // a narrow integer wraps, a bool is 0 or 1 (compute_domain)
}

}  // namespace kiln::cpp
