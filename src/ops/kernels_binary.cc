// Reference kernels of the elementwise binary ops. Operands are converted to the promoted
// dtype first (map_elementwise_in), then computed in double or wrapping int64.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "ops/elementwise_scalar.h"
#include "ops/kernel_util.h"
#include "ops/kernels.h"
#include "ops/type_rules.h"

namespace kiln {

namespace {

// The dtype both operands are converted to: the result dtype, except for ops whose result
// is bool (comparisons) or floating by rule (atan2, true division).
DType common_dtype(const KernelCall& call) { return result_type(operand_types(call.operands)); }

template <typename F, typename I>
Expected<std::vector<Tensor>> binary(const KernelCall& call, DType compute, F&& f, I&& fi) {
  return std::vector<Tensor>{map_elementwise_in(
      call, compute, [&](const double* v) { return f(v[0], v[1]); }, [&](const int64_t* v) { return fi(v[0], v[1]); })};
}

template <typename F, typename I>
Expected<std::vector<Tensor>> binary(const KernelCall& call, F&& f, I&& fi) {
  return binary(call, call.result_types[0].dtype, f, fi);
}

Diagnostic division_by_zero(const KernelCall& call) { return make_error(call.name(), ": integer division by zero"); }

bool any_zero_divisor(const KernelCall& call) {
  const KernelOperand& d = call.operands[1];
  if (!d.is_tensor()) return d.literal.to_int() == 0 && !d.literal.is_float();
  bool zero = false;
  const Tensor& t = d.tensor;
  for_each_index(t.sizes(), {t.strides()},
                 [&](int64_t, const int64_t* off) { zero |= load_int(t.data_bytes(), t.dtype(), off[0]) == 0; });
  return zero;
}

// Checks shared by add and sub: alpha must fit the result's category.
Status check_alpha(const KernelCall& call) {
  const Scalar alpha = call.attr_scalar("alpha");
  const DType t = call.result_types[0].dtype;
  if (alpha.is_float() && !is_floating(t))
    return make_error(call.name(), ": for integral input tensors, argument alpha must not be a floating point number");
  if (alpha.is_bool() && t != DType::Bool)
    return make_error(call.name(), ": boolean alpha only supported for bool results");
  return Status::ok();
}

template <typename Cmp>
Expected<std::vector<Tensor>> compare(const KernelCall& call, Cmp cmp) {
  return binary(
      call, common_dtype(call), [&](double a, double b) { return cmp(a, b) ? 1.0 : 0.0; },
      [&](int64_t a, int64_t b) -> int64_t { return cmp(a, b) ? 1 : 0; });
}

int dtype_bits(DType t) { return dtype_size(t) * 8; }

}  // namespace

Expected<std::vector<Tensor>> kernel_add(const KernelCall& call) {
  KILN_TRY(check_alpha(call));
  const Scalar alpha = call.attr_scalar("alpha");
  if (call.result_types[0].dtype == DType::Bool) {  // as PyTorch: alpha as a bool, * as and, + as or
    const bool scaled = alpha.to_int() != 0;
    return binary(
        call, [&](double a, double b) { return a != 0 || (scaled && b != 0) ? 1.0 : 0.0; },
        [&](int64_t a, int64_t b) -> int64_t { return a != 0 || (scaled && b != 0) ? 1 : 0; });
  }
  return binary(
      call, [&](double a, double b) { return a + alpha.to_double() * b; },
      [&](int64_t a, int64_t b) { return wrap_add(a, wrap_mul(alpha.to_int(), b)); });
}

Expected<std::vector<Tensor>> kernel_sub(const KernelCall& call) {
  KILN_TRY(check_alpha(call));
  const Scalar alpha = call.attr_scalar("alpha");
  return binary(
      call, [&](double a, double b) { return a - alpha.to_double() * b; },
      [&](int64_t a, int64_t b) { return wrap_sub(a, wrap_mul(alpha.to_int(), b)); });
}

Expected<std::vector<Tensor>> kernel_mul(const KernelCall& call) {
  return binary(
      call, [](double a, double b) { return a * b; }, wrap_mul);
}

Expected<std::vector<Tensor>> kernel_div(const KernelCall& call) {
  const std::optional<std::string> mode = call.attr_opt_str("rounding_mode");
  if (!mode)
    return binary(
        call, [](double a, double b) { return a / b; }, [](int64_t a, int64_t) { return a; });
  const bool integral = !is_floating(call.result_types[0].dtype);
  if (integral && any_zero_divisor(call)) return division_by_zero(call);
  // The quotient is rounded to the result dtype before truncating, as PyTorch divides in that
  // dtype: a float32 quotient of -9.99999999 is -10 and truncates to -10, not -9.
  const DType t = call.result_types[0].dtype;
  if (*mode == "trunc")
    return binary(
        call, [t](double a, double b) { return div_trunc_float(a, b, t); }, div_trunc_int);
  return binary(
      call, [t](double a, double b) { return div_floor_float(a, b, t); }, div_floor_int);
}

Expected<std::vector<Tensor>> kernel_pow(const KernelCall& call) {
  const DType t = call.result_types[0].dtype;  // not bool: the dtype rule refuses pow of bools
  const KernelOperand& e = call.operands[1];
  if (!is_floating(t) && !e.is_tensor() && e.literal.to_int() < 0)
    return make_error(call.name(), ": integers to negative integer powers are not allowed");
  return binary(
      call, [](double a, double b) { return std::pow(a, b); }, pow_int);
}

Expected<std::vector<Tensor>> kernel_maximum(const KernelCall& call) {
  return binary(
      call, [](double a, double b) { return std::isnan(a) || std::isnan(b) ? a + b : std::max(a, b); },
      [](int64_t a, int64_t b) { return std::max(a, b); });
}

Expected<std::vector<Tensor>> kernel_minimum(const KernelCall& call) {
  return binary(
      call, [](double a, double b) { return std::isnan(a) || std::isnan(b) ? a + b : std::min(a, b); },
      [](int64_t a, int64_t b) { return std::min(a, b); });
}

// Python's %: the result takes the divisor's sign.
Expected<std::vector<Tensor>> kernel_remainder(const KernelCall& call) {
  if (!is_floating(call.result_types[0].dtype) && any_zero_divisor(call)) return division_by_zero(call);
  return binary(call, remainder_float, remainder_int);
}

// C's fmod: the result takes the dividend's sign.
Expected<std::vector<Tensor>> kernel_fmod(const KernelCall& call) {
  if (!is_floating(call.result_types[0].dtype) && any_zero_divisor(call)) return division_by_zero(call);
  return binary(
      call, [](double a, double b) { return std::fmod(a, b); }, fmod_int);
}

Expected<std::vector<Tensor>> kernel_atan2(const KernelCall& call) {
  return binary(
      call, [](double a, double b) { return std::atan2(a, b); }, [](int64_t a, int64_t) { return a; });
}

Expected<std::vector<Tensor>> kernel_eq(const KernelCall& call) {
  return compare(call, [](auto a, auto b) { return a == b; });
}
Expected<std::vector<Tensor>> kernel_ne(const KernelCall& call) {
  return compare(call, [](auto a, auto b) { return a != b; });
}
Expected<std::vector<Tensor>> kernel_lt(const KernelCall& call) {
  return compare(call, [](auto a, auto b) { return a < b; });
}
Expected<std::vector<Tensor>> kernel_le(const KernelCall& call) {
  return compare(call, [](auto a, auto b) { return a <= b; });
}
Expected<std::vector<Tensor>> kernel_gt(const KernelCall& call) {
  return compare(call, [](auto a, auto b) { return a > b; });
}
Expected<std::vector<Tensor>> kernel_ge(const KernelCall& call) {
  return compare(call, [](auto a, auto b) { return a >= b; });
}

// Logical ops treat any nonzero value (NaN included) as true; doubles hold every operand's
// zero-ness exactly.
Expected<std::vector<Tensor>> kernel_logical_and(const KernelCall& call) {
  return binary(
      call, DType::F64, [](double a, double b) { return a != 0 && b != 0 ? 1.0 : 0.0; },
      [](int64_t a, int64_t) { return a; });
}
Expected<std::vector<Tensor>> kernel_logical_or(const KernelCall& call) {
  return binary(
      call, DType::F64, [](double a, double b) { return a != 0 || b != 0 ? 1.0 : 0.0; },
      [](int64_t a, int64_t) { return a; });
}
Expected<std::vector<Tensor>> kernel_logical_xor(const KernelCall& call) {
  return binary(
      call, DType::F64, [](double a, double b) { return (a != 0) != (b != 0) ? 1.0 : 0.0; },
      [](int64_t a, int64_t) { return a; });
}

Expected<std::vector<Tensor>> kernel_bitwise_and(const KernelCall& call) {
  return binary(
      call, [](double a, double) { return a; }, [](int64_t a, int64_t b) { return a & b; });
}
Expected<std::vector<Tensor>> kernel_bitwise_or(const KernelCall& call) {
  return binary(
      call, [](double a, double) { return a; }, [](int64_t a, int64_t b) { return a | b; });
}
Expected<std::vector<Tensor>> kernel_bitwise_xor(const KernelCall& call) {
  return binary(
      call, [](double a, double) { return a; }, [](int64_t a, int64_t b) { return a ^ b; });
}

// Shifts by a negative amount or by at least the dtype's width give 0 (left) or the sign
// fill (right), as torch defines them.
Expected<std::vector<Tensor>> kernel_bitwise_left_shift(const KernelCall& call) {
  const int bits = dtype_bits(call.result_types[0].dtype);
  return binary(
      call, [](double a, double) { return a; }, [&](int64_t a, int64_t b) { return shift_left_int(a, b, bits); });
}

Expected<std::vector<Tensor>> kernel_bitwise_right_shift(const KernelCall& call) {
  const int bits = dtype_bits(call.result_types[0].dtype);
  return binary(
      call, [](double a, double) { return a; }, [&](int64_t a, int64_t b) { return shift_right_int(a, b, bits); });
}

}  // namespace kiln
