#include "lower/eval_math.h"

#include <cmath>
#include <string>

#include "lower/loop_ir.h"
#include "ops/elementwise_scalar.h"
#include "ops/op_info.h"

namespace kiln {

namespace {

bool floor_mode(const AttrMap& attrs) {
  const AttrValue* m = attrs.find("rounding_mode");
  return m && m->is_string() && m->as_string() == "floor";
}

template <typename T>
T sign_of(T x) {
  return static_cast<T>((T(0) < x) - (x < T(0)));
}

}  // namespace

bool is_eval_math_op(OpKind op) {
  switch (op) {
    case OpKind::Log1p: case OpKind::Expm1: case OpKind::Erf: case OpKind::Tan: case OpKind::Atan: case OpKind::Atan2:
    case OpKind::Sign: case OpKind::Floor: case OpKind::Ceil: case OpKind::Round: case OpKind::Trunc:
    case OpKind::Remainder: case OpKind::Fmod: case OpKind::Lerp: case OpKind::BitwiseAnd: case OpKind::BitwiseOr:
    case OpKind::BitwiseXor: case OpKind::BitwiseNot: case OpKind::BitwiseLeftShift: case OpKind::BitwiseRightShift:
      return true;
    case OpKind::Div: case OpKind::Pow:  // div with a rounding_mode; pow of integers
      return true;
    default:
      return false;
  }
}

double eval_math_float(OpKind op, std::span<const double> a, DType out, const AttrMap& attrs) {
  switch (op) {
    case OpKind::Log1p: return std::log1p(a[0]);
    case OpKind::Expm1: return std::expm1(a[0]);
    case OpKind::Erf: return std::erf(a[0]);
    case OpKind::Tan: return std::tan(a[0]);
    case OpKind::Atan: return std::atan(a[0]);
    case OpKind::Atan2: return std::atan2(a[0], a[1]);
    case OpKind::Sign: return sign_of(a[0]);  // NaN and -0 give +0
    case OpKind::Floor: return std::floor(a[0]);
    case OpKind::Ceil: return std::ceil(a[0]);
    case OpKind::Round: return std::nearbyint(a[0]);  // half to even
    case OpKind::Trunc: return std::trunc(a[0]);
    case OpKind::Remainder: return remainder_float(a[0], a[1]);
    case OpKind::Fmod: return std::fmod(a[0], a[1]);
    case OpKind::Lerp: return lerp_float(a[0], a[1], a[2]);
    case OpKind::Pow: return std::pow(a[0], a[1]);
    case OpKind::Div:
      if (!attrs.find("rounding_mode")) return a[0] / a[1];
      return floor_mode(attrs) ? div_floor_float(a[0], a[1], out) : div_trunc_float(a[0], a[1], out);
    default: return 0;  // the integer-only ops never take this path (compute_domain)
  }
}

Expected<int64_t> eval_math_int(OpKind op, std::span<const int64_t> a, DType out, const AttrMap& attrs) {
  const int bits = out == DType::Bool ? 1 : dtype_size(out) * 8;
  if (compute_divides(op, attrs) && a[1] == 0)
    return make_error(op_info(op).name(), ": integer division by zero");
  switch (op) {
    case OpKind::Sign: return sign_of(a[0]);
    case OpKind::Floor: case OpKind::Ceil: case OpKind::Round: case OpKind::Trunc: return a[0];
    case OpKind::Remainder: return remainder_int(a[0], a[1]);
    case OpKind::Fmod: return fmod_int(a[0], a[1]);
    case OpKind::Div: return floor_mode(attrs) ? div_floor_int(a[0], a[1]) : div_trunc_int(a[0], a[1]);
    case OpKind::Pow: return pow_int(a[0], a[1]);
    case OpKind::BitwiseAnd: return a[0] & a[1];
    case OpKind::BitwiseOr: return a[0] | a[1];
    case OpKind::BitwiseXor: return a[0] ^ a[1];
    case OpKind::BitwiseNot: return out == DType::Bool ? int64_t{a[0] == 0} : ~a[0];
    case OpKind::BitwiseLeftShift: return shift_left_int(a[0], a[1], bits);
    case OpKind::BitwiseRightShift: return shift_right_int(a[0], a[1], bits);
    default: return 0;  // the floating-only ops never take this path (compute_domain)
  }
}

}  // namespace kiln
