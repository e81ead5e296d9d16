#include "codegen/cpp/cpp_scalar.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <vector>

#include "core/element.h"
#include "support/check.h"

namespace kiln::cpp {

namespace {

bool is_float_valued(DType t) { return t == DType::F32 || t == DType::F16 || t == DType::BF16; }

std::string paren(const std::string& x) { return "(" + x + ")"; }

// x of dtype `from` as a float expression, as the evaluator's static_cast<float>(double).
std::string as_float(const std::string& x, DType from) {
  if (is_float_valued(from)) return x;
  if (from == DType::F64 || from == DType::Bool) return "(float)" + x;
  return "(float)(double)" + x;  // int64 -> double -> float, rounding as the evaluator does
}

}  // namespace

std::string truth_value(const std::string& x, DType t) { return t == DType::Bool ? x : paren(x + " != 0"); }

std::string int64_value(const std::string& x, DType from) {
  return is_floating(from) ? "kiln_f64_to_i64(" + x + ")" : x;
}

std::string_view value_type(DType t) {
  switch (t) {
    case DType::F64: return "double";
    case DType::F32:
    case DType::F16:
    case DType::BF16: return "float";
    case DType::Bool: return "bool";
    default: return "int64_t";
  }
}

std::string_view storage_type(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::U8: return "uint8_t";
    case DType::I8: return "int8_t";
    case DType::I16: return "int16_t";
    case DType::I32: return "int32_t";
    case DType::I64: return "int64_t";
    case DType::F16:
    case DType::BF16: return "uint16_t";
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
  auto res =
      single ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v)) : std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + f;
}

std::string const_literal(const Scalar& v, DType t) {
  // Round exactly as the evaluator's `const` does: store in the dtype, load back.
  alignas(8) std::byte scratch[8] = {};
  if (v.is_float())
    store_double(scratch, t, 0, v.to_double());
  else
    store_int(scratch, t, 0, v.to_int());
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
    case DType::Bool: return "(uint8_t)" + truth_value(x, from);
    case DType::I64: return int64_value(x, from);
    case DType::F16: return "kiln_f32_to_f16(" + as_float(x, from) + ")";
    case DType::BF16: return "kiln_f32_to_bf16(" + as_float(x, from) + ")";
    case DType::F32: return as_float(x, from);
    case DType::F64: return from == DType::F64 ? x : "(double)" + x;
    default: return "(" + std::string(storage_type(to)) + ")" + paren(int64_value(x, from));  // wraps, as store_int
  }
}

std::string convert_value(const std::string& x, DType from, DType to) {
  switch (to) {
    case DType::Bool: return truth_value(x, from);
    case DType::F16: return "kiln_f16_round(" + as_float(x, from) + ")";
    case DType::BF16: return "kiln_bf16_round(" + as_float(x, from) + ")";
    case DType::F32:
    case DType::F64:
    case DType::I64: return store_value(x, from, to);
    default: return "(int64_t)" + store_value(x, from, to);
  }
}

}  // namespace kiln::cpp
