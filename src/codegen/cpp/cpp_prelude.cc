#include "codegen/cpp/cpp_prelude.h"

#include <string>

#include "codegen/c_integer_helpers.h"

namespace kiln::cpp {

// The f16/bf16 conversions give core/half.cc's bits (f32 -> f16 and bf16 line for line).
std::string_view cpp_prelude() {
  static const std::string text =
      R"(#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

// Non-temporal stores of 16 floats from a 64-byte aligned array, for large outputs
// (CppEmitOptions::streaming_store_bytes), through the compilers' builtins: <immintrin.h>
// took a quarter of a second to parse in every compiled chunk.
#if defined(__AVX512F__)
typedef float kiln_f32x16 __attribute__((vector_size(64), aligned(64)));
static inline void kiln_stream_f32x16(float* dst, const float* src) {
#if defined(__clang__)
  __builtin_nontemporal_store(*(const kiln_f32x16*)src, (kiln_f32x16*)dst);
#else
  __builtin_ia32_movntps512(dst, *(const kiln_f32x16*)src);
#endif
}
static inline void kiln_store_fence() { __builtin_ia32_sfence(); }
#endif

)" + c_index_and_wrap_helpers("static inline") +
      R"(// Floating -> int64 without undefined behaviour: NaN gives 0, out-of-range values saturate.
static inline int64_t kiln_f64_to_i64(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9.2233720368547758e18) return INT64_MAX;
  if (v <= -9.2233720368547758e18) return INT64_MIN;
  return (int64_t)v;
}

// exp and tanh in float that vectorize (libm's calls do not without -ffast-math): exp by
// range reduction to |r| <= ln2/2 and Cephes' degree-6 polynomial (about 1 ulp), scaled by
// one power of two; inputs are clamped to [-86.6, 88.8] (exp is 0 below, inf above; NaN
// passes through the compares).
// tanh: Cephes' odd polynomial for |x| < 0.625, else 1 - 2 / (exp(2|x|) + 1) with the sign.
//
// Below -86.6 (exp 2.4e-38, just above FLT_MIN = 1.2e-38) the result is flushed to 0, and the
// input is clamped so that no vector lane computes a denormal. On Intel cores each vector op
// that produces one takes a microcode assist: the softmax of a causally masked attention row
// (half its inputs -inf) ran 3.6x slower for it.
//
// The generated code is built with -ffp-contract=off (runtime/cpu/toolchain.cc), so that no
// a * b + c of a kernel is fused where the evaluator rounds a * b; these functions' multiply-adds
// are fused by hand instead, where the CPU has FMA (__FP_FAST_FMAF), as the contraction fused
// them when their errors were measured.
#if defined(__FP_FAST_FMAF)
#define KILN_FMAF(a, b, c) __builtin_fmaf(a, b, c)
#else
#define KILN_FMAF(a, b, c) ((a) * (b) + (c))
#endif
// x = k ln2 + r with k = round(x / ln2) and |r| <= ln2/2 (ln2 in two parts, Cody-Waite).
static inline float kiln_exp_reduce(float x, float* k) {
  *k = std::floor(KILN_FMAF(x, 1.44269504088896341f, 0.5f));
  return KILN_FMAF(-*k, -2.12194440e-4f, KILN_FMAF(-*k, 0.693359375f, x));
}
// exp(r) - 1 for |r| <= ln2/2: r + r^2 P(r), Cephes' degree-6 polynomial of exp (about 1 ulp).
static inline float kiln_expm1_poly(float r) {
  float p = 1.9875691500e-4f;
  p = KILN_FMAF(p, r, 1.3981999507e-3f);
  p = KILN_FMAF(p, r, 8.3334519073e-3f);
  p = KILN_FMAF(p, r, 4.1665795894e-2f);
  p = KILN_FMAF(p, r, 1.6666665459e-1f);
  p = KILN_FMAF(p, r, 5.0000001201e-1f);
  return KILN_FMAF(p * r, r, r);
}
// exp(x) = p * 2^k for |x| within float range (the reduction and polynomial above).
static inline float kiln_exp_parts(float x, float* k) { return kiln_expm1_poly(kiln_exp_reduce(x, k)) + 1.0f; }
// On the clamped range k lies in [-125, 128], so exp(x) = (2 exp(r)) * 2^(k-1) with a normal
// 2^(k-1): one scaling multiply, exact (or overflowing to inf, above ln(FLT_MAX) = 88.72),
// where 2^k alone would not be a float at k = 128. 2 exp(r) = 2 expm1(r) + 2 is one FMA with
// the bits of 2 (expm1(r) + 1). The same bits as two half scalings, 15% less time for a
// softmax forward on the Zen 4 VM (docs/PERF.md).
static inline float kiln_expf(float x) {
  const float xc = x < -86.6f ? -86.6f : (x > 88.8f ? 88.8f : x);
  float k;
  const float p2 = KILN_FMAF(kiln_expm1_poly(kiln_exp_reduce(xc, &k)), 2.0f, 2.0f);
  const uint32_t bits = (uint32_t)((int)k + 126) << 23;
  float scale;
  std::memcpy(&scale, &bits, 4);
  return x != x ? x : (x < -86.6f ? 0.0f : p2 * scale);
}
// tanh's exp(2|x|) skips kiln_expf's range handling: past |x| = 9.5 tanh rounds to 1 in
// float, so |x| is clamped there, y = 2|x| stays in [1.25, 19] and 2^k is one multiply, with
// none of kiln_expf's overflow, underflow and NaN cases (a NaN x takes the small branch, which
// keeps it). The same bits as through kiln_expf, about 35% less work: the tanh-gelu forward
// and backward of the transformer block's step are compute-bound on it.
static inline float kiln_tanhf(float x) {
  const float ax = std::fabs(x);
  const float z = x * x;
  float q = KILN_FMAF(-5.70498872745e-3f, z, 2.06390887954e-2f);
  q = KILN_FMAF(q, z, -5.37397155531e-2f);
  q = KILN_FMAF(q, z, 1.33314422036e-1f);
  q = KILN_FMAF(q, z, -3.33332819422e-1f);
  const float small = KILN_FMAF(q * z, x, x);
  float k;
  const float p = kiln_exp_parts(2.0f * (ax < 9.5f ? ax : 9.5f), &k);
  const uint32_t scale_bits = (uint32_t)((int)k + 127) << 23;
  float scale;
  std::memcpy(&scale, &scale_bits, 4);
  const float big = 1.0f - 2.0f / KILN_FMAF(p, scale, 1.0f);
  return ax >= 0.625f ? std::copysign(big, x) : small;
}

// expm1, log1p and erf in float that vectorize, as kiln_expf does. Their largest errors over
// every float, against the double-precision functions, are 1.485, 0.757 and 1.095 ulp (x86-64
// with FMA, GCC 12, these flags; tests/unit/test_cpp_math.cc checks a dense sample against
// them), and they are exact at the special values. expm1: exp's reduction and polynomial,
// x = k ln2 + r and expm1(r) = r + r^2 P(r); then 2 (h (1 + expm1(r)) - 0.5) with
// h = 2^(k-1), which stays finite where 2^k would not (k = 128, x up to 88.72). |x| below
// 2^-25 gives x (and keeps -0); below -30 the result rounds to -1.
static inline float kiln_expm1f(float x) {
  const float xc = x > -30.0f ? (x < 89.0f ? x : 89.0f) : -30.0f;  // NaN -> -30, replaced below
  float k;
  const float e = kiln_expm1_poly(kiln_exp_reduce(xc, &k));
  const uint32_t hb = (uint32_t)((int)k + 126) << 23;
  float h;
  std::memcpy(&h, &hb, 4);
  const float y = 2.0f * KILN_FMAF(h, e, h - 0.5f);
  return x != x || std::fabs(x) < 2.98023224e-8f ? x : y;
}
// log1p: fdlibm's (musl's log1pf): u = 1 + x = 2^k m with m in [sqrt(1/2), sqrt(2)), the
// rounding error of 1 + x carried as c / u, and log(m) = log((1 + s) / (1 - s)) in s = f/(2+f)
// by an odd polynomial. -1 gives -inf, below -1 NaN; |x| below 2^-24 gives x (and keeps -0).
static inline float kiln_log1pf(float x) {
  const float u = 1.0f + x;
  uint32_t iu;
  std::memcpy(&iu, &u, 4);
  iu += 0x3f800000u - 0x3f3504f3u;
  const int k = (int)(iu >> 23) - 0x7f;
  float c = k >= 2 ? 1.0f - (u - x) : x - (u - 1.0f);
  c = k < 25 ? c / u : 0.0f;
  iu = (iu & 0x007fffffu) + 0x3f3504f3u;
  float m;
  std::memcpy(&m, &iu, 4);
  const float f = m - 1.0f;
  const float s = f / (2.0f + f);
  const float z = s * s, w = z * z;
  const float hfsq = 0.5f * f * f;
  const float r = KILN_FMAF(w, KILN_FMAF(w, 2.4279078841e-1f, 4.0000972152e-1f),
                            KILN_FMAF(z, KILN_FMAF(w, 2.8498786688e-1f, 6.6666662693e-1f), hfsq));
  const float dk = (float)k;
  const float y = KILN_FMAF(dk, 6.9313812256e-1f, KILN_FMAF(-0.5f * f, f, KILN_FMAF(s, r, KILN_FMAF(dk, 9.0580006145e-6f, c))) + f);
  const float big = x == __builtin_inff() ? x : (x == -1.0f ? -__builtin_inff() : (x < -1.0f ? __builtin_nanf("") : y));
  return x != x || std::fabs(x) < 5.96046448e-8f ? x : big;
}
// erf: x + x P(x^2) below |x| = 0.921875; above, 1 - exp(Q(|x|)) with Q a polynomial fit of
// log(erfc) on [0.921875, 3.92] (no rounding error of x^2 enters), |x| clamped at 3.92, where
// erf rounds to 1. Chebyshev fits (mpmath) rounded to float.
static inline float kiln_erff(float x) {
  const float s = x * x;
  float p = -6.004081e-4f;
  p = KILN_FMAF(p, s, 4.9960203e-3f);
  p = KILN_FMAF(p, s, -2.6768757e-2f);
  p = KILN_FMAF(p, s, 1.1281882e-1f);
  p = KILN_FMAF(p, s, -3.76125e-1f);
  p = KILN_FMAF(p, s, 1.2837915e-1f);
  const float small = KILN_FMAF(p, x, x);
  const float t = std::fabs(x) < 3.92f ? std::fabs(x) : 3.92f;
  float q = 1.6702145e-6f;
  q = KILN_FMAF(q, t, -4.667038e-5f);
  q = KILN_FMAF(q, t, 6.0160964e-4f);
  q = KILN_FMAF(q, t, -4.780378e-3f);
  q = KILN_FMAF(q, t, 2.6475143e-2f);
  q = KILN_FMAF(q, t, -1.1016605e-1f);
  q = KILN_FMAF(q, t, -6.3174456e-1f);
  q = KILN_FMAF(q, t, -1.1302752e0f);
  q = KILN_FMAF(q, t, 3.28966e-4f);
  const float big = std::copysign(1.0f - kiln_expf(q), x);
  return std::fabs(x) < 0.921875f || x != x ? small : big;
}

// maximum/minimum: NaN when either operand is NaN (a NaN `a` falls through the comparison, which
// is false), the first operand between equal ones (-0 and +0). Written so that the compilers
// vectorize the comparison into one vmaxps/vminps and fix up a NaN `b` with one compare and
// blend: 4 ops where testing both operands for NaN took 7 (with the relu below, the 8-op chain
// went from 3.8-4.2 to 3.1-3.3 ms on the 2-core AMD Zen 4 VM, where it is bound by compute).
// Which NaN comes back when both are NaN is unspecified, as in IEEE 754.
static inline float kiln_maximum(float a, float b) { return b != b ? b : (a < b ? b : a); }
static inline double kiln_maximum(double a, double b) { return b != b ? b : (a < b ? b : a); }
static inline float kiln_minimum(float a, float b) { return b != b ? b : (b < a ? b : a); }
static inline double kiln_minimum(double a, double b) { return b != b ? b : (b < a ? b : a); }

// pow as C's, which the reference kernels and the loop-IR evaluator compute: with
// -fno-math-errno GCC computes pow(x, 0.5) as sqrt(x) where 0.5 is a constant, NaN at -inf and
// -0 at -0 where pow gives inf and +0. pow(|x|, 0.5) is pow(x, 0.5) at those two points, and
// sqrt gives it too. Other constant exponents keep pow's value (powi for integers).
static inline float kiln_pow(float x, float y) {
  return std::pow(y == 0.5f && (x == 0 || std::isinf(x)) ? std::fabs(x) : x, y);
}
static inline double kiln_pow(double x, double y) {
  return std::pow(y == 0.5 && (x == 0 || std::isinf(x)) ? std::fabs(x) : x, y);
}

// atan as C's, where a sin or cos reads it: with -fno-math-errno GCC computes cos(atan(x)) as
// 1 / sqrt(x * x + 1) and sin(atan(x)) as x / sqrt(x * x + 1) behind a test of |x| that NaN
// fails, giving 0 for NaN (found by the random-graph fuzzer's long run, seed 3001160 of --grad).
// The select hides the call from that rewrite and gives atan's own NaN.
static inline float kiln_atan(float x) {
  const float r = std::atan(x);
  return x != x ? x : r;
}
static inline double kiln_atan(double x) {
  const double r = std::atan(x);
  return x != x ? x : r;
}

// Counter-based random draws (the loop IR's `random`), core/random.cc's line for line so that
// uniform and integer draws have the same bits: Philox-4x32-10 of the 128-bit counter
// (offset, counter) under a 64-bit key, with 32x32->64-bit multiplies and no tables, so that a
// loop of draws vectorizes (GCC, AVX-512: 64-byte vectors); the key of an rng_state stream.
// Normal draws are Box-Muller in double with libm's log and cos, as core/random.cc calls them.
struct kiln_philox4 {
  uint32_t w0, w1, w2, w3;
};
static inline kiln_philox4 kiln_philox(uint64_t key, uint64_t offset, uint64_t counter) {
  uint32_t c0 = (uint32_t)counter, c1 = (uint32_t)(counter >> 32), c2 = (uint32_t)offset, c3 = (uint32_t)(offset >> 32);
  uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
    const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint32_t)p1;
    c3 = (uint32_t)p0;
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return kiln_philox4{c0, c1, c2, c3};
}
static inline uint64_t kiln_mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
// The key of the stream of a node of seed `node_seed` under an rng_state's seed.
static inline uint64_t kiln_random_key(int64_t state_seed, uint64_t node_seed) {
  return kiln_mix64(kiln_mix64((uint64_t)state_seed) ^ node_seed);
}
static inline uint64_t kiln_random_u64(uint64_t key, uint64_t offset, int64_t counter) {
  const kiln_philox4 b = kiln_philox(key, offset, (uint64_t)counter);
  return ((uint64_t)b.w0 << 32) | b.w1;
}
// Uniform in [0, 1) from the top `bits` bits (at most 24: float's), exact in float.
static inline float kiln_uniform_f(uint64_t r, int bits) {
  return (float)(int32_t)(r >> (64 - bits)) * (1.0f / (float)(1 << bits));
}
static inline double kiln_uniform_d(uint64_t r) { return (double)(int64_t)(r >> 11) * 0x1p-53; }
static inline double kiln_random_normal(uint64_t key, uint64_t offset, int64_t counter) {
  const kiln_philox4 b = kiln_philox(key, offset, (uint64_t)counter);
  const uint64_t a = ((uint64_t)b.w0 << 32) | b.w1, c = ((uint64_t)b.w2 << 32) | b.w3;
  const double u1 = ((double)(int64_t)(a >> 11) + 1.0) * 0x1p-53;
  const double u2 = (double)(int64_t)(c >> 11) * 0x1p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(0x1.921fb54442d18p+2 * u2);
}

// IEEE binary16 and bfloat16 storage, rounding to nearest even.
static inline uint16_t kiln_f32_to_f16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t mag = x & 0x7fffffffu;
  if (mag > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
  if (mag >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
  if (mag < 0x38800000u) {
    if (mag < 0x33000000u) return (uint16_t)sign;
    uint32_t exp = mag >> 23;
    uint32_t mant = (mag & 0x7fffffu) | 0x800000u;
    uint32_t drop = 126 - exp;
    uint32_t r = mant >> drop;
    uint32_t rem = mant & ((1u << drop) - 1);
    uint32_t halfway = 1u << (drop - 1);
    if (rem > halfway || (rem == halfway && (r & 1))) ++r;
    return (uint16_t)(sign | r);
  }
  uint32_t r = (mag >> 13) - (112u << 10);
  uint32_t rem = mag & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1))) ++r;
  return (uint16_t)(sign | r);
}

// Without branches (selects only), so that a loop of f16 loads vectorizes: core/half.cc's
// bits, a subnormal being its mantissa times 2^-24 (exact in float) and the other values the
// exponent rebiased by 112 (by 224 for inf and NaN, whose exponent bits all stay set).
static inline float kiln_f16_to_f32(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t em = h & 0x7fffu;  // exponent and mantissa
  const uint32_t rebiased = (em << 13) + (em >= 0x7c00u ? 0x70000000u : 0x38000000u);
  const float subnormal = (float)(int32_t)em * 0x1p-24f;
  uint32_t subnormal_bits;
  std::memcpy(&subnormal_bits, &subnormal, 4);
  const uint32_t out = sign | (em < 0x400u ? subnormal_bits : rebiased);
  float f;
  std::memcpy(&f, &out, 4);
  return f;
}

static inline uint16_t kiln_f32_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

static inline float kiln_bf16_to_f32(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

static inline float kiln_f16_round(float f) { return kiln_f16_to_f32(kiln_f32_to_f16(f)); }
static inline float kiln_bf16_round(float f) { return kiln_bf16_to_f32(kiln_f32_to_bf16(f)); }

// div with rounding_mode, remainder and lerp on floating values, and the integer forms of
// rounding division, remainder, fmod, pow and shifts: ops/elementwise_scalar.h, which the
// evaluator and the reference kernels use, step for step. A floating rounding division rounds
// a - fmod(a, b) and the quotient to the result dtype with `rnd` (kiln_f16_round, ...; kiln_keepf
// when the compute type is the result's). Integer divisors are nonzero constants here.
static inline float kiln_keepf(float x) { return x; }
static inline double kiln_keep(double x) { return x; }
static inline double kiln_f32_round_d(double x) { return (double)(float)x; }
static inline double kiln_f16_round_d(double x) { return (double)kiln_f16_round((float)x); }
static inline double kiln_bf16_round_d(double x) { return (double)kiln_bf16_round((float)x); }
template <typename T, typename R>
static inline T kiln_div_floor(T a, T b, R rnd) {
  if (b == 0) return a / b;
  const T mod = std::fmod(a, b);
  T div = rnd(rnd(a - mod) / b);
  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
  if (div == 0) return std::copysign(T(0), a / b);
  T floordiv = std::floor(div);
  if (div - floordiv > T(0.5)) floordiv += 1;
  return floordiv;
}
static inline float kiln_remainder(float a, float b) { const float m = std::fmod(a, b); return m != 0 && (b < 0) != (m < 0) ? m + b : m; }
static inline double kiln_remainder(double a, double b) { const double m = std::fmod(a, b); return m != 0 && (b < 0) != (m < 0) ? m + b : m; }
// float's multiply-adds fused as ATen's vectorized lerp fuses them (and the contraction did): in
// float w * (b - a) alone may overflow where the evaluator's double does not.
static inline float kiln_lerp(float a, float b, float w) {
  return std::fabs(w) < 0.5f ? KILN_FMAF(w, b - a, a) : KILN_FMAF(a - b, 1.0f - w, b);
}
static inline double kiln_lerp(double a, double b, double w) { return std::fabs(w) < 0.5 ? a + w * (b - a) : b - (b - a) * (1.0 - w); }
)" + c_integer_op_helpers("static inline");
  return text;
}

}  // namespace kiln::cpp
