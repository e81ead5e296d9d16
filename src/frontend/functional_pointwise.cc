// Elementwise ops and the arithmetic operators of the functional API.
#include "frontend/functional.h"
#include "frontend/op_builder.h"

namespace kiln {

using detail::OpBuilder;

namespace {

Tensor unary(OpKind op, const Tensor& x, CallSite loc) { return OpBuilder(op, loc).operand(x).one(); }
Tensor binary(OpKind op, const Tensor& x, const TensorOrScalar& other, CallSite loc) {
  return OpBuilder(op, loc).operand(x).operand(other).one();
}

}  // namespace

Tensor neg(const Tensor& x, CallSite loc) { return unary(OpKind::Neg, x, loc); }
Tensor abs(const Tensor& x, CallSite loc) { return unary(OpKind::Abs, x, loc); }
Tensor exp(const Tensor& x, CallSite loc) { return unary(OpKind::Exp, x, loc); }
Tensor log(const Tensor& x, CallSite loc) { return unary(OpKind::Log, x, loc); }
Tensor log1p(const Tensor& x, CallSite loc) { return unary(OpKind::Log1p, x, loc); }
Tensor expm1(const Tensor& x, CallSite loc) { return unary(OpKind::Expm1, x, loc); }
Tensor sqrt(const Tensor& x, CallSite loc) { return unary(OpKind::Sqrt, x, loc); }
Tensor rsqrt(const Tensor& x, CallSite loc) { return unary(OpKind::Rsqrt, x, loc); }
Tensor reciprocal(const Tensor& x, CallSite loc) { return unary(OpKind::Reciprocal, x, loc); }
Tensor sin(const Tensor& x, CallSite loc) { return unary(OpKind::Sin, x, loc); }
Tensor cos(const Tensor& x, CallSite loc) { return unary(OpKind::Cos, x, loc); }
Tensor tan(const Tensor& x, CallSite loc) { return unary(OpKind::Tan, x, loc); }
Tensor atan(const Tensor& x, CallSite loc) { return unary(OpKind::Atan, x, loc); }
Tensor tanh(const Tensor& x, CallSite loc) { return unary(OpKind::Tanh, x, loc); }
Tensor sigmoid(const Tensor& x, CallSite loc) { return unary(OpKind::Sigmoid, x, loc); }
Tensor relu(const Tensor& x, CallSite loc) { return unary(OpKind::Relu, x, loc); }
Tensor gelu(const Tensor& x, const std::string& approximate, CallSite loc) {
  return OpBuilder(OpKind::Gelu, loc).operand(x).attr("approximate", approximate).one();
}
Tensor silu(const Tensor& x, CallSite loc) { return unary(OpKind::Silu, x, loc); }
Tensor erf(const Tensor& x, CallSite loc) { return unary(OpKind::Erf, x, loc); }
Tensor sign(const Tensor& x, CallSite loc) { return unary(OpKind::Sign, x, loc); }
Tensor floor(const Tensor& x, CallSite loc) { return unary(OpKind::Floor, x, loc); }
Tensor ceil(const Tensor& x, CallSite loc) { return unary(OpKind::Ceil, x, loc); }
Tensor round(const Tensor& x, int64_t decimals, CallSite loc) {
  return OpBuilder(OpKind::Round, loc).operand(x).attr("decimals", decimals).one();
}
Tensor trunc(const Tensor& x, CallSite loc) { return unary(OpKind::Trunc, x, loc); }
Tensor logical_not(const Tensor& x, CallSite loc) { return unary(OpKind::LogicalNot, x, loc); }
Tensor isnan(const Tensor& x, CallSite loc) { return unary(OpKind::Isnan, x, loc); }
Tensor isinf(const Tensor& x, CallSite loc) { return unary(OpKind::Isinf, x, loc); }
Tensor isfinite(const Tensor& x, CallSite loc) { return unary(OpKind::Isfinite, x, loc); }
Tensor bitwise_not(const Tensor& x, CallSite loc) { return unary(OpKind::BitwiseNot, x, loc); }
Tensor leaky_relu(const Tensor& x, Scalar negative_slope, CallSite loc) {
  return OpBuilder(OpKind::LeakyRelu, loc).operand(x).attr("negative_slope", negative_slope).one();
}
Tensor softplus(const Tensor& x, Scalar beta, Scalar threshold, CallSite loc) {
  return OpBuilder(OpKind::Softplus, loc).operand(x).attr("beta", beta).attr("threshold", threshold).one();
}
Tensor elu(const Tensor& x, Scalar alpha, Scalar scale, Scalar input_scale, CallSite loc) {
  return OpBuilder(OpKind::Elu, loc)
      .operand(x)
      .attr("alpha", alpha)
      .attr("scale", scale)
      .attr("input_scale", input_scale)
      .one();
}
Tensor hardtanh(const Tensor& x, Scalar min_val, Scalar max_val, CallSite loc) {
  return OpBuilder(OpKind::Hardtanh, loc).operand(x).attr("min_val", min_val).attr("max_val", max_val).one();
}

Tensor add(const Tensor& x, const TensorOrScalar& other, Scalar alpha, CallSite loc) {
  return OpBuilder(OpKind::Add, loc).operand(x).operand(other).attr("alpha", alpha).one();
}
Tensor sub(const Tensor& x, const TensorOrScalar& other, Scalar alpha, CallSite loc) {
  return OpBuilder(OpKind::Sub, loc).operand(x).operand(other).attr("alpha", alpha).one();
}
Tensor mul(const Tensor& x, const TensorOrScalar& other, CallSite loc) { return binary(OpKind::Mul, x, other, loc); }
Tensor div(const Tensor& x, const TensorOrScalar& other, std::optional<std::string> rounding_mode, CallSite loc) {
  return OpBuilder(OpKind::Div, loc).operand(x).operand(other).attr("rounding_mode", rounding_mode).one();
}
Tensor pow(const Tensor& x, const TensorOrScalar& exponent, CallSite loc) {
  return binary(OpKind::Pow, x, exponent, loc);
}
Tensor pow(Scalar x, const Tensor& exponent, CallSite loc) {
  return OpBuilder(OpKind::Pow, loc).operand(TensorOrScalar(x)).operand(exponent).one();
}
Tensor maximum(const Tensor& x, const Tensor& other, CallSite loc) { return binary(OpKind::Maximum, x, other, loc); }
Tensor minimum(const Tensor& x, const Tensor& other, CallSite loc) { return binary(OpKind::Minimum, x, other, loc); }
Tensor remainder(const Tensor& x, const TensorOrScalar& other, CallSite loc) {
  return binary(OpKind::Remainder, x, other, loc);
}
Tensor fmod(const Tensor& x, const TensorOrScalar& other, CallSite loc) { return binary(OpKind::Fmod, x, other, loc); }
Tensor atan2(const Tensor& x, const Tensor& other, CallSite loc) { return binary(OpKind::Atan2, x, other, loc); }
Tensor eq(const Tensor& x, const TensorOrScalar& other, CallSite loc) { return binary(OpKind::Eq, x, other, loc); }
Tensor ne(const Tensor& x, const TensorOrScalar& other, CallSite loc) { return binary(OpKind::Ne, x, other, loc); }
Tensor lt(const Tensor& x, const TensorOrScalar& other, CallSite loc) { return binary(OpKind::Lt, x, other, loc); }
Tensor le(const Tensor& x, const TensorOrScalar& other, CallSite loc) { return binary(OpKind::Le, x, other, loc); }
Tensor gt(const Tensor& x, const TensorOrScalar& other, CallSite loc) { return binary(OpKind::Gt, x, other, loc); }
Tensor ge(const Tensor& x, const TensorOrScalar& other, CallSite loc) { return binary(OpKind::Ge, x, other, loc); }
Tensor logical_and(const Tensor& x, const Tensor& other, CallSite loc) {
  return binary(OpKind::LogicalAnd, x, other, loc);
}
Tensor logical_or(const Tensor& x, const Tensor& other, CallSite loc) {
  return binary(OpKind::LogicalOr, x, other, loc);
}
Tensor logical_xor(const Tensor& x, const Tensor& other, CallSite loc) {
  return binary(OpKind::LogicalXor, x, other, loc);
}
Tensor bitwise_and(const Tensor& x, const TensorOrScalar& other, CallSite loc) {
  return binary(OpKind::BitwiseAnd, x, other, loc);
}
Tensor bitwise_or(const Tensor& x, const TensorOrScalar& other, CallSite loc) {
  return binary(OpKind::BitwiseOr, x, other, loc);
}
Tensor bitwise_xor(const Tensor& x, const TensorOrScalar& other, CallSite loc) {
  return binary(OpKind::BitwiseXor, x, other, loc);
}
Tensor bitwise_left_shift(const Tensor& x, const TensorOrScalar& other, CallSite loc) {
  return binary(OpKind::BitwiseLeftShift, x, other, loc);
}
Tensor bitwise_right_shift(const Tensor& x, const TensorOrScalar& other, CallSite loc) {
  return binary(OpKind::BitwiseRightShift, x, other, loc);
}

Tensor where(const Tensor& condition, const TensorOrScalar& x, const TensorOrScalar& other, CallSite loc) {
  return OpBuilder(OpKind::Where, loc).operand(condition).operand(x).operand(other).one();
}
Tensor clamp(const Tensor& x, Scalar min, Scalar max, CallSite loc) {
  return OpBuilder(OpKind::Clamp, loc).operand(x).attr("min", min).attr("max", max).one();
}
Tensor lerp(const Tensor& x, const Tensor& end, const TensorOrScalar& weight, CallSite loc) {
  return OpBuilder(OpKind::Lerp, loc).operand(x).operand(end).operand(weight).one();
}
Tensor addcmul(const Tensor& x, const Tensor& tensor1, const Tensor& tensor2, Scalar value, CallSite loc) {
  return OpBuilder(OpKind::Addcmul, loc).operand(x).operand(tensor1).operand(tensor2).attr("value", value).one();
}
Tensor addcdiv(const Tensor& x, const Tensor& tensor1, const Tensor& tensor2, Scalar value, CallSite loc) {
  return OpBuilder(OpKind::Addcdiv, loc).operand(x).operand(tensor1).operand(tensor2).attr("value", value).one();
}

// An operator cannot see its caller's line; recording this file's line instead would mislead.
constexpr CallSite kNoCallSite{};

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b, 1, kNoCallSite); }
Tensor operator+(const Tensor& a, Scalar b) { return add(a, b, 1, kNoCallSite); }
Tensor operator+(Scalar a, const Tensor& b) { return add(b, a, 1, kNoCallSite); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b, 1, kNoCallSite); }
Tensor operator-(const Tensor& a, Scalar b) { return sub(a, b, 1, kNoCallSite); }
Tensor operator-(Scalar a, const Tensor& b) { return add(neg(b, kNoCallSite), a, 1, kNoCallSite); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b, kNoCallSite); }
Tensor operator*(const Tensor& a, Scalar b) { return mul(a, b, kNoCallSite); }
Tensor operator*(Scalar a, const Tensor& b) { return mul(b, a, kNoCallSite); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b, std::nullopt, kNoCallSite); }
Tensor operator/(const Tensor& a, Scalar b) { return div(a, b, std::nullopt, kNoCallSite); }
Tensor operator/(Scalar a, const Tensor& b) { return mul(reciprocal(b, kNoCallSite), a, kNoCallSite); }
Tensor operator-(const Tensor& a) { return neg(a, kNoCallSite); }

}  // namespace kiln
