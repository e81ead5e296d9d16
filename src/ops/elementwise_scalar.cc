#include "ops/elementwise_scalar.h"

#include <cmath>

#include "ops/kernel_util.h"

namespace kiln {

int64_t div_trunc_int(int64_t a, int64_t b) { return b == -1 ? wrap_neg(a) : a / b; }

int64_t div_floor_int(int64_t a, int64_t b) {
  if (b == -1) return wrap_neg(a);
  const int64_t q = a / b, r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}

double div_trunc_float(double a, double b, DType t) { return std::trunc(round_to_dtype(a / b, t)); }

double div_floor_float(double a, double b, DType t) {
  if (b == 0) return a / b;
  const double mod = std::fmod(a, b);
  double div = round_to_dtype(round_to_dtype(a - mod, t) / b, t);
  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
  if (div == 0) return std::copysign(0.0, a / b);
  double floordiv = std::floor(div);
  if (div - floordiv > 0.5) floordiv += 1;
  return floordiv;
}

double remainder_float(double a, double b) {
  double mod = std::fmod(a, b);
  if (mod != 0 && (b < 0) != (mod < 0)) mod += b;
  return mod;
}

int64_t remainder_int(int64_t a, int64_t b) {
  if (b == -1) return 0;
  const int64_t r = a % b;
  return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

int64_t fmod_int(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }

int64_t pow_int(int64_t base, int64_t exp) {
  if (exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exp & 1) ? -1 : 1;
    return 0;
  }
  int64_t result = 1;
  while (exp > 0) {
    if (exp & 1) result = wrap_mul(result, base);
    base = wrap_mul(base, base);
    exp >>= 1;
  }
  return result;
}

int64_t shift_left_int(int64_t a, int64_t b, int bits) {
  if (b < 0 || b >= bits) return 0;
  return static_cast<int64_t>(static_cast<uint64_t>(a) << b);
}

int64_t shift_right_int(int64_t a, int64_t b, int bits) {
  if (b < 0 || b >= bits) return a < 0 ? -1 : 0;
  return a >> b;
}

double lerp_float(double a, double b, double w) { return std::fabs(w) < 0.5 ? a + w * (b - a) : b - (b - a) * (1 - w); }

}  // namespace kiln
