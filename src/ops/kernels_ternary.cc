// Reference kernels of the elementwise ops with three operands (where, clamp, lerp,
// addcmul, addcdiv). clamp's bounds are attributes but promote like inline scalars.
#include <cmath>
#include <vector>

#include "ops/elementwise_scalar.h"
#include "ops/kernel_util.h"
#include "ops/kernels.h"

namespace kiln {

namespace {

template <typename F, typename I>
Expected<std::vector<Tensor>> ternary(const KernelCall& call, F&& f, I&& fi) {
  return std::vector<Tensor>{map_elementwise_in(
      call, call.result_types[0].dtype, [&](const double* v) { return f(v[0], v[1], v[2]); },
      [&](const int64_t* v) { return fi(v[0], v[1], v[2]); })};
}

}  // namespace

// The condition is read as a number; the two branches are converted to the result dtype.
Expected<std::vector<Tensor>> kernel_where(const KernelCall& call) {
  return ternary(
      call, [](double c, double a, double b) { return c != 0 ? a : b; },
      [](int64_t c, int64_t a, int64_t b) { return c != 0 ? a : b; });
}

// NaN in the input or in either bound gives NaN; a lower bound above the upper gives the upper.
Expected<std::vector<Tensor>> kernel_clamp(const KernelCall& call) {
  const Scalar lo = call.attr_scalar("min"), hi = call.attr_scalar("max");
  const DType t = call.result_types[0].dtype;
  const double nan = std::nan("");
  const double lo_d = lo.is_none() ? nan : round_to_dtype(lo.to_double(), t);
  const double hi_d = hi.is_none() ? nan : round_to_dtype(hi.to_double(), t);
  return std::vector<Tensor>{map_elementwise_in(
      call, t,
      [&](const double* v) {
        double x = v[0];
        if (!lo.is_none()) x = std::isnan(x) || std::isnan(lo_d) ? nan : std::max(x, lo_d);
        if (!hi.is_none()) x = std::isnan(x) || std::isnan(hi_d) ? nan : std::min(x, hi_d);
        return x;
      },
      [&](const int64_t* v) {
        int64_t x = v[0];
        if (!lo.is_none()) x = std::max(x, lo.to_int());
        if (!hi.is_none()) x = std::min(x, hi.to_int());
        return x;
      })};
}

// torch's two-sided form keeps lerp exact at weight 0 and 1.
Expected<std::vector<Tensor>> kernel_lerp(const KernelCall& call) {
  return ternary(call, lerp_float, [](int64_t a, int64_t, int64_t) { return a; });
}

// For integer results the value is converted to the integer type first (0.5 becomes 0).
Expected<std::vector<Tensor>> kernel_addcmul(const KernelCall& call) {
  const Scalar value = call.attr_scalar("value");
  if (call.result_types[0].dtype == DType::Bool) return make_error(call.name(), ": not implemented for 'bool'");
  return ternary(
      call, [&](double s, double a, double b) { return s + value.to_double() * a * b; },
      [&](int64_t s, int64_t a, int64_t b) { return wrap_add(s, wrap_mul(value.to_int(), wrap_mul(a, b))); });
}

Expected<std::vector<Tensor>> kernel_addcdiv(const KernelCall& call) {
  const Scalar value = call.attr_scalar("value");
  return ternary(
      call, [&](double s, double a, double b) { return s + value.to_double() * (a / b); },
      [](int64_t s, int64_t, int64_t) { return s; });
}

}  // namespace kiln
