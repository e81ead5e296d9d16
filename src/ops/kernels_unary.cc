// Reference kernels of the elementwise unary ops. Floating results compute in double and
// round on store; integer results compute in int64 and wrap on store.
#include <cmath>
#include <numbers>
#include <vector>

#include "ops/kernel_util.h"
#include "ops/kernels.h"

namespace kiln {

namespace {

DType result_dtype(const KernelCall& call) { return call.result_types[0].dtype; }

// A floating function of one operand, for ops whose result is always floating.
template <typename F>
Expected<std::vector<Tensor>> unary_float(const KernelCall& call, F&& f) {
  return std::vector<Tensor>{map_elementwise(
      call, result_dtype(call), [&](const double* v) { return f(v[0]); }, [](const int64_t* v) { return v[0]; })};
}

// A function with a floating and an integer form, computed in the result dtype.
template <typename F, typename I>
Expected<std::vector<Tensor>> unary(const KernelCall& call, F&& f, I&& fi) {
  return std::vector<Tensor>{map_elementwise(
      call, result_dtype(call), [&](const double* v) { return f(v[0]); }, [&](const int64_t* v) { return fi(v[0]); })};
}

// A predicate on the operand's value, computed in the operand's dtype.
template <typename F, typename I>
Expected<std::vector<Tensor>> predicate(const KernelCall& call, F&& f, I&& fi) {
  return std::vector<Tensor>{map_elementwise(
      call, call.operands[0].tensor.dtype(), [&](const double* v) { return f(v[0]) ? 1.0 : 0.0; },
      [&](const int64_t* v) -> int64_t { return fi(v[0]) ? 1 : 0; })};
}

int64_t identity(int64_t x) { return x; }

template <typename T>
T sign_of(T x) {
  return static_cast<T>((T(0) < x) - (x < T(0)));
}

// Clamp to [lo, hi], propagating NaN from x and from either bound (as clamp and torch do).
double clamp_double(double x, double lo, double hi) {
  if (std::isnan(x) || std::isnan(lo) || std::isnan(hi)) return std::nan("");
  return x < lo ? lo : (x > hi ? hi : x);
}

}  // namespace

Expected<std::vector<Tensor>> kernel_neg(const KernelCall& call) {
  return unary(
      call, [](double x) { return -x; }, wrap_neg);
}

Expected<std::vector<Tensor>> kernel_abs(const KernelCall& call) {
  return unary(
      call, [](double x) { return std::fabs(x); }, [](int64_t x) { return x < 0 ? wrap_neg(x) : x; });
}

Expected<std::vector<Tensor>> kernel_exp(const KernelCall& call) {
  return unary_float(call, [](double x) { return std::exp(x); });
}
Expected<std::vector<Tensor>> kernel_log(const KernelCall& call) {
  return unary_float(call, [](double x) { return std::log(x); });
}
Expected<std::vector<Tensor>> kernel_log1p(const KernelCall& call) {
  return unary_float(call, [](double x) { return std::log1p(x); });
}
Expected<std::vector<Tensor>> kernel_expm1(const KernelCall& call) {
  return unary_float(call, [](double x) { return std::expm1(x); });
}
Expected<std::vector<Tensor>> kernel_sqrt(const KernelCall& call) {
  return unary_float(call, [](double x) { return std::sqrt(x); });
}
Expected<std::vector<Tensor>> kernel_rsqrt(const KernelCall& call) {
  return unary_float(call, [](double x) { return 1.0 / std::sqrt(x); });
}
Expected<std::vector<Tensor>> kernel_reciprocal(const KernelCall& call) {
  return unary_float(call, [](double x) { return 1.0 / x; });
}
Expected<std::vector<Tensor>> kernel_sin(const KernelCall& call) {
  return unary_float(call, [](double x) { return std::sin(x); });
}
Expected<std::vector<Tensor>> kernel_cos(const KernelCall& call) {
  return unary_float(call, [](double x) { return std::cos(x); });
}
Expected<std::vector<Tensor>> kernel_tan(const KernelCall& call) {
  return unary_float(call, [](double x) { return std::tan(x); });
}
Expected<std::vector<Tensor>> kernel_atan(const KernelCall& call) {
  return unary_float(call, [](double x) { return std::atan(x); });
}
Expected<std::vector<Tensor>> kernel_tanh(const KernelCall& call) {
  return unary_float(call, [](double x) { return std::tanh(x); });
}
Expected<std::vector<Tensor>> kernel_erf(const KernelCall& call) {
  return unary_float(call, [](double x) { return std::erf(x); });
}

Expected<std::vector<Tensor>> kernel_sigmoid(const KernelCall& call) {
  return unary_float(call, [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
}

Expected<std::vector<Tensor>> kernel_relu(const KernelCall& call) {
  // x < 0 is false for NaN and -0, which pass through as torch's relu (a clamp at 0) passes them.
  return unary(
      call, [](double x) { return x < 0 ? 0.0 : x; }, [](int64_t x) { return x > 0 ? x : 0; });
}

Expected<std::vector<Tensor>> kernel_gelu(const KernelCall& call) {
  const std::string& approximate = call.attr_str("approximate");
  if (approximate == "none") {
    return unary_float(call, [](double x) { return 0.5 * x * (1.0 + std::erf(x * std::numbers::sqrt2 / 2)); });
  }
  if (approximate == "tanh") {
    return unary_float(call, [](double x) {
      const double k = std::sqrt(2.0 / std::numbers::pi);
      return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
    });
  }
  return make_error(call.name(), ": approximate must be \"none\" or \"tanh\", not \"", approximate, "\"");
}

Expected<std::vector<Tensor>> kernel_silu(const KernelCall& call) {
  return unary_float(call, [](double x) { return x / (1.0 + std::exp(-x)); });
}

// sign(NaN) is 0 and sign(-0.0) is +0.0, as in torch ((0 < x) - (x < 0)).
Expected<std::vector<Tensor>> kernel_sign(const KernelCall& call) {
  return unary(call, sign_of<double>, sign_of<int64_t>);
}

Expected<std::vector<Tensor>> kernel_floor(const KernelCall& call) {
  return unary(
      call, [](double x) { return std::floor(x); }, identity);
}
Expected<std::vector<Tensor>> kernel_ceil(const KernelCall& call) {
  return unary(
      call, [](double x) { return std::ceil(x); }, identity);
}
Expected<std::vector<Tensor>> kernel_trunc(const KernelCall& call) {
  return unary(
      call, [](double x) { return std::trunc(x); }, identity);
}

// Half to even (nearbyint in the default rounding mode), scaled by 10^decimals as torch does.
Expected<std::vector<Tensor>> kernel_round(const KernelCall& call) {
  const int64_t decimals = call.attr_int("decimals");
  if (decimals == 0)
    return unary(
        call, [](double x) { return std::nearbyint(x); }, identity);
  if (!is_floating(result_dtype(call)))
    return make_error(call.name(), ": decimals is not implemented for '", dtype_name(result_dtype(call)), "'");
  const double ten_pow = std::pow(10.0, static_cast<double>(decimals > 0 ? decimals : -decimals));
  if (decimals > 0) return unary_float(call, [&](double x) { return std::nearbyint(x * ten_pow) / ten_pow; });
  return unary_float(call, [&](double x) { return std::nearbyint(x / ten_pow) * ten_pow; });
}

Expected<std::vector<Tensor>> kernel_logical_not(const KernelCall& call) {
  return predicate(
      call, [](double x) { return x == 0; }, [](int64_t x) { return x == 0; });
}
Expected<std::vector<Tensor>> kernel_isnan(const KernelCall& call) {
  return predicate(
      call, [](double x) { return std::isnan(x); }, [](int64_t) { return false; });
}
Expected<std::vector<Tensor>> kernel_isinf(const KernelCall& call) {
  return predicate(
      call, [](double x) { return std::isinf(x); }, [](int64_t) { return false; });
}
Expected<std::vector<Tensor>> kernel_isfinite(const KernelCall& call) {
  return predicate(
      call, [](double x) { return std::isfinite(x); }, [](int64_t) { return true; });
}

Expected<std::vector<Tensor>> kernel_bitwise_not(const KernelCall& call) {
  if (result_dtype(call) == DType::Bool)
    return unary(
        call, [](double x) { return x == 0 ? 1.0 : 0.0; }, [](int64_t x) -> int64_t { return x == 0; });
  return unary(
      call, [](double x) { return x; }, [](int64_t x) { return ~x; });
}

Expected<std::vector<Tensor>> kernel_leaky_relu(const KernelCall& call) {
  const double slope = call.attr_scalar("negative_slope").to_double();
  return unary_float(call, [&](double x) { return x > 0 ? x : x * slope; });
}

Expected<std::vector<Tensor>> kernel_softplus(const KernelCall& call) {
  const double beta = call.attr_scalar("beta").to_double(), threshold = call.attr_scalar("threshold").to_double();
  return unary_float(call, [&](double x) { return x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta; });
}

Expected<std::vector<Tensor>> kernel_elu(const KernelCall& call) {
  const double alpha = call.attr_scalar("alpha").to_double(), scale = call.attr_scalar("scale").to_double(),
               input_scale = call.attr_scalar("input_scale").to_double();
  return unary_float(call, [&](double x) { return x <= 0 ? std::expm1(x * input_scale) * alpha * scale : x * scale; });
}

Expected<std::vector<Tensor>> kernel_hardtanh(const KernelCall& call) {
  const Scalar lo = call.attr_scalar("min_val"), hi = call.attr_scalar("max_val");
  return unary(
      call, [&](double x) { return clamp_double(x, lo.to_double(), hi.to_double()); },
      [&](int64_t x) { return x < lo.to_int() ? lo.to_int() : (x > hi.to_int() ? hi.to_int() : x); });
}

}  // namespace kiln
