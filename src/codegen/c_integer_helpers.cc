#include "codegen/c_integer_helpers.h"

namespace kiln {

std::string c_index_and_wrap_helpers(std::string_view qualifier) {
  const std::string q(qualifier);
  return R"(// Floor division and non-negative modulo by a positive constant (the loop IR's div, mod).
)" + q + R"( int64_t kiln_floordiv(int64_t a, int64_t d) { return a / d - (a % d != 0 && a < 0); }
)" + q + R"( int64_t kiln_mod(int64_t a, int64_t d) { int64_t r = a % d; return r < 0 ? r + d : r; }

// Wrapping int64 arithmetic, through uint64_t (signed overflow is undefined in C++).
)" + q + R"( int64_t kiln_wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
)" + q + R"( int64_t kiln_wrap_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
)" + q + R"( int64_t kiln_wrap_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
)" + q + R"( int64_t kiln_wrap_neg(int64_t a) { return (int64_t)(0 - (uint64_t)a); }

)";
}

std::string c_integer_op_helpers(std::string_view qualifier) {
  const std::string q(qualifier);
  return R"()" + q + R"( int64_t kiln_div_trunc_i64(int64_t a, int64_t b) { return b == -1 ? kiln_wrap_neg(a) : a / b; }
)" + q + R"( int64_t kiln_div_floor_i64(int64_t a, int64_t b) {
  if (b == -1) return kiln_wrap_neg(a);
  const int64_t q = a / b, r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}
)" + q + R"( int64_t kiln_remainder_i64(int64_t a, int64_t b) {
  if (b == -1) return 0;
  const int64_t r = a % b;
  return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}
)" + q + R"( int64_t kiln_fmod_i64(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }
)" + q + R"( int64_t kiln_pow_i64(int64_t base, int64_t exp) {
  if (exp < 0) return base == 1 ? 1 : (base == -1 ? ((exp & 1) ? -1 : 1) : 0);
  uint64_t result = 1, b = (uint64_t)base;
  for (; exp > 0; exp >>= 1) {
    if (exp & 1) result *= b;
    b *= b;
  }
  return (int64_t)result;
}
// Shifts of an integer `bits` wide: out of [0, bits), left gives 0 and right the sign fill. The
// right shift of a negative value goes through ~a, so no implementation-defined shift is left.
)" + q + R"( int64_t kiln_shl(int64_t a, int64_t b, int bits) { return b < 0 || b >= bits ? 0 : (int64_t)((uint64_t)a << b); }
)" + q + R"( int64_t kiln_shr(int64_t a, int64_t b, int bits) {
  if (b < 0 || b >= bits) return a < 0 ? -1 : 0;
  return a < 0 ? ~(~a >> b) : a >> b;
}
)";
}

}  // namespace kiln
