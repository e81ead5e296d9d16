#include "lower/eval_compute.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

#include "core/element.h"
#include "lower/compute_op.h"
#include "ops/elementwise_scalar.h"
#include "ops/kernel_util.h"
#include "ops/op_info.h"
#include "support/check.h"

namespace kiln {

namespace {

template <typename T>
T sign_of(T x) {
  return static_cast<T>((T(0) < x) - (x < T(0)));
}

bool floor_mode(const AttrMap& attrs) {
  const AttrValue* m = attrs.find("rounding_mode");
  return m && m->is_string() && m->as_string() == "floor";
}

// A compute op's operands as it reads them: on its path (double `f` or int64 `i`), as truth
// values `t`, and as they are (`a`, of `dtypes`: where converts the one it selects).
struct Operands {
  bool floating = false;
  std::array<double, 3> f{};
  std::array<int64_t, 3> i{};
  std::array<bool, 3> t{};
  std::span<const EvalValue> a;
  std::span<const DType> dtypes;
};

EvalValue real(double v) { return {v, 0}; }
EvalValue integer(int64_t v) { return {0, v}; }
EvalValue truth(bool v) { return {0, v ? 1 : 0}; }

// A comparison in the computation type: double, or int64 for integers (exact past 2^53).
template <typename Cmp>
EvalValue compare(const Operands& x, Cmp cmp) {
  return truth(x.floating ? cmp(x.f[0], x.f[1]) : cmp(x.i[0], x.i[1]));
}

// `op` on its path: a floating-path result in `f`, an integer one in `i`, a bool in `i`.
EvalValue compute(ComputeOp op, const Operands& x, DType out, const AttrMap& attrs) {
  const bool fl = x.floating;
  const std::array<double, 3>& f = x.f;
  const std::array<int64_t, 3>& i = x.i;
  const int bits = out == DType::Bool ? 1 : dtype_size(out) * 8;
  switch (op) {
    case ComputeOp::Neg: return fl ? real(-f[0]) : integer(wrap_sub(0, i[0]));
    case ComputeOp::Abs: return fl ? real(std::fabs(f[0])) : integer(i[0] < 0 ? wrap_sub(0, i[0]) : i[0]);
    case ComputeOp::Relu:  // NaN and -0 pass, as in kernel_relu
      return fl ? real(f[0] < 0 ? 0.0 : f[0]) : integer(i[0] > 0 ? i[0] : 0);
    case ComputeOp::Sign: return fl ? real(sign_of(f[0])) : integer(sign_of(i[0]));  // NaN and -0 give +0
    case ComputeOp::Floor: return fl ? real(std::floor(f[0])) : integer(i[0]);
    case ComputeOp::Ceil: return fl ? real(std::ceil(f[0])) : integer(i[0]);
    case ComputeOp::Round: return fl ? real(std::nearbyint(f[0])) : integer(i[0]);  // half to even
    case ComputeOp::Trunc: return fl ? real(std::trunc(f[0])) : integer(i[0]);
    case ComputeOp::Add: return fl ? real(f[0] + f[1]) : integer(wrap_add(i[0], i[1]));
    case ComputeOp::Sub: return fl ? real(f[0] - f[1]) : integer(wrap_sub(i[0], i[1]));
    case ComputeOp::Mul: return fl ? real(f[0] * f[1]) : integer(wrap_mul(i[0], i[1]));
    case ComputeOp::Maximum:
      if (!fl) return integer(std::max(i[0], i[1]));
      return real(std::isnan(f[0]) || std::isnan(f[1]) ? f[0] + f[1] : std::max(f[0], f[1]));
    case ComputeOp::Minimum:
      if (!fl) return integer(std::min(i[0], i[1]));
      return real(std::isnan(f[0]) || std::isnan(f[1]) ? f[0] + f[1] : std::min(f[0], f[1]));
    case ComputeOp::Pow: return fl ? real(std::pow(f[0], f[1])) : integer(pow_int(i[0], i[1]));
    case ComputeOp::Remainder: return fl ? real(remainder_float(f[0], f[1])) : integer(remainder_int(i[0], i[1]));
    case ComputeOp::Fmod: return fl ? real(std::fmod(f[0], f[1])) : integer(fmod_int(i[0], i[1]));
    case ComputeOp::Div:
      // A rounding division rounds its quotient to `out` first, as the reference kernel divides
      // in the result dtype.
      if (!attrs.find("rounding_mode")) return real(f[0] / f[1]);
      if (!fl) return integer(floor_mode(attrs) ? div_floor_int(i[0], i[1]) : div_trunc_int(i[0], i[1]));
      return real(floor_mode(attrs) ? div_floor_float(f[0], f[1], out) : div_trunc_float(f[0], f[1], out));
    case ComputeOp::Exp: return real(std::exp(f[0]));
    case ComputeOp::Log: return real(std::log(f[0]));
    case ComputeOp::Log1p: return real(std::log1p(f[0]));
    case ComputeOp::Expm1: return real(std::expm1(f[0]));
    case ComputeOp::Sqrt: return real(std::sqrt(f[0]));
    case ComputeOp::Rsqrt: return real(1.0 / std::sqrt(f[0]));
    case ComputeOp::Reciprocal: return real(1.0 / f[0]);
    case ComputeOp::Sin: return real(std::sin(f[0]));
    case ComputeOp::Cos: return real(std::cos(f[0]));
    case ComputeOp::Tan: return real(std::tan(f[0]));
    case ComputeOp::Atan: return real(std::atan(f[0]));
    case ComputeOp::Tanh: return real(std::tanh(f[0]));
    case ComputeOp::Sigmoid: return real(1.0 / (1.0 + std::exp(-f[0])));
    case ComputeOp::Erf: return real(std::erf(f[0]));
    case ComputeOp::Atan2: return real(std::atan2(f[0], f[1]));
    case ComputeOp::Lerp: return real(lerp_float(f[0], f[1], f[2]));
    case ComputeOp::BitwiseNot: return integer(out == DType::Bool ? int64_t{i[0] == 0} : ~i[0]);
    case ComputeOp::BitwiseAnd: return integer(i[0] & i[1]);
    case ComputeOp::BitwiseOr: return integer(i[0] | i[1]);
    case ComputeOp::BitwiseXor: return integer(i[0] ^ i[1]);
    case ComputeOp::BitwiseLeftShift: return integer(shift_left_int(i[0], i[1], bits));
    case ComputeOp::BitwiseRightShift: return integer(shift_right_int(i[0], i[1], bits));
    case ComputeOp::LogicalNot: return truth(!x.t[0]);
    case ComputeOp::LogicalAnd: return truth(x.t[0] && x.t[1]);
    case ComputeOp::LogicalOr: return truth(x.t[0] || x.t[1]);
    case ComputeOp::LogicalXor: return truth(x.t[0] != x.t[1]);
    case ComputeOp::Isinf: return truth(fl && std::isinf(f[0]));
    case ComputeOp::Isnan: return truth(fl && std::isnan(f[0]));
    case ComputeOp::Isfinite: return truth(!fl || std::isfinite(f[0]));
    case ComputeOp::Eq: return compare(x, std::equal_to<>());
    case ComputeOp::Ne: return compare(x, std::not_equal_to<>());
    case ComputeOp::Lt: return compare(x, std::less<>());
    case ComputeOp::Le: return compare(x, std::less_equal<>());
    case ComputeOp::Gt: return compare(x, std::greater<>());
    case ComputeOp::Ge: return compare(x, std::greater_equal<>());
    case ComputeOp::Where: {
      const size_t chosen = x.t[0] ? 1 : 2;
      return convert_eval_value(x.a[chosen], x.dtypes[chosen], out);
    }
  }
  KILN_UNREACHABLE("bad compute op");
}

}  // namespace

EvalValue convert_eval_value(const EvalValue& v, DType from, DType to) {
  alignas(8) std::byte scratch[8] = {};
  if (is_floating(from)) {
    store_double(scratch, to, 0, v.f);
  } else {
    store_int(scratch, to, 0, v.i);
  }
  EvalValue out;
  if (is_floating(to)) {
    out.f = load_double(scratch, to, 0);
  } else {
    out.i = load_int(scratch, to, 0);
  }
  return out;
}

Expected<EvalValue> eval_compute(OpKind op, std::span<const EvalValue> a, std::span<const DType> dtypes, DType out,
                                 const AttrMap& attrs) {
  const ComputeOp c = compute_op(op);
  KILN_CHECK(static_cast<int>(a.size()) == compute_op_arity(c) && a.size() == dtypes.size())
      << "compute op with " << a.size() << " operands";
  Operands x;
  x.a = a;
  x.dtypes = dtypes;
  bool any_floating = false;
  for (DType t : dtypes) any_floating = any_floating || is_floating(t);
  // Floating ops on integer operands (exp of an int) compute in double too (compute_domain).
  const ComputeDomain domain = compute_domain(op, attrs);
  x.floating = domain == ComputeDomain::Float || (any_floating && domain == ComputeDomain::Any);
  for (size_t k = 0; k < a.size(); ++k) {
    const bool floating = is_floating(dtypes[k]);
    x.t[k] = floating ? a[k].f != 0 : a[k].i != 0;
    x.f[k] = floating ? a[k].f : static_cast<double>(a[k].i);
    x.i[k] = convert_eval_value(a[k], dtypes[k], DType::I64).i;
  }
  if (!x.floating && compute_divides(op, attrs) && x.i[1] == 0)
    return make_error(op_info(op).name(), ": integer division by zero");
  const EvalValue r = compute(c, x, out, attrs);
  const ComputeForm form = compute_op_form(c);
  if (form != ComputeForm::Any && form != ComputeForm::Float && form != ComputeForm::Int) return r;
  // Within a kernel floating values stay in double; an integer result wraps to its dtype
  // (compute_domain), as the reference kernel stores each op's result.
  if (x.floating) return is_floating(out) ? r : convert_eval_value(r, DType::F64, out);
  return convert_eval_value(r, DType::I64, out);
}

}  // namespace kiln
