// Elementwise ops and the arithmetic operators of the functional API.
#include "frontend/functional.h"
#include "frontend/op_builder.h"

namespace kiln {

using detail::OpBuilder;

namespace {

Tensor unary(OpKind op, const Tensor& x) { return OpBuilder(op).operand(x).one(); }
Tensor binary(OpKind op, const Tensor& x, const TensorOrScalar& other) {
  return OpBuilder(op).operand(x).operand(other).one();
}

}  // namespace

Tensor neg(const Tensor& x) { return unary(OpKind::Neg, x); }
Tensor abs(const Tensor& x) { return unary(OpKind::Abs, x); }
Tensor exp(const Tensor& x) { return unary(OpKind::Exp, x); }
Tensor log(const Tensor& x) { return unary(OpKind::Log, x); }
Tensor log1p(const Tensor& x) { return unary(OpKind::Log1p, x); }
Tensor expm1(const Tensor& x) { return unary(OpKind::Expm1, x); }
Tensor sqrt(const Tensor& x) { return unary(OpKind::Sqrt, x); }
Tensor rsqrt(const Tensor& x) { return unary(OpKind::Rsqrt, x); }
Tensor reciprocal(const Tensor& x) { return unary(OpKind::Reciprocal, x); }
Tensor sin(const Tensor& x) { return unary(OpKind::Sin, x); }
Tensor cos(const Tensor& x) { return unary(OpKind::Cos, x); }
Tensor tan(const Tensor& x) { return unary(OpKind::Tan, x); }
Tensor atan(const Tensor& x) { return unary(OpKind::Atan, x); }
Tensor tanh(const Tensor& x) { return unary(OpKind::Tanh, x); }
Tensor sigmoid(const Tensor& x) { return unary(OpKind::Sigmoid, x); }
Tensor relu(const Tensor& x) { return unary(OpKind::Relu, x); }
Tensor gelu(const Tensor& x, const std::string& approximate) {
  return OpBuilder(OpKind::Gelu).operand(x).attr("approximate", approximate).one();
}
Tensor silu(const Tensor& x) { return unary(OpKind::Silu, x); }
Tensor erf(const Tensor& x) { return unary(OpKind::Erf, x); }
Tensor sign(const Tensor& x) { return unary(OpKind::Sign, x); }
Tensor floor(const Tensor& x) { return unary(OpKind::Floor, x); }
Tensor ceil(const Tensor& x) { return unary(OpKind::Ceil, x); }
Tensor round(const Tensor& x, int64_t decimals) {
  return OpBuilder(OpKind::Round).operand(x).attr("decimals", decimals).one();
}
Tensor trunc(const Tensor& x) { return unary(OpKind::Trunc, x); }
Tensor logical_not(const Tensor& x) { return unary(OpKind::LogicalNot, x); }
Tensor isnan(const Tensor& x) { return unary(OpKind::Isnan, x); }
Tensor isinf(const Tensor& x) { return unary(OpKind::Isinf, x); }
Tensor isfinite(const Tensor& x) { return unary(OpKind::Isfinite, x); }
Tensor bitwise_not(const Tensor& x) { return unary(OpKind::BitwiseNot, x); }
Tensor leaky_relu(const Tensor& x, Scalar negative_slope) {
  return OpBuilder(OpKind::LeakyRelu).operand(x).attr("negative_slope", negative_slope).one();
}
Tensor softplus(const Tensor& x, Scalar beta, Scalar threshold) {
  return OpBuilder(OpKind::Softplus).operand(x).attr("beta", beta).attr("threshold", threshold).one();
}
Tensor elu(const Tensor& x, Scalar alpha, Scalar scale, Scalar input_scale) {
  return OpBuilder(OpKind::Elu).operand(x).attr("alpha", alpha).attr("scale", scale).attr("input_scale", input_scale).one();
}
Tensor hardtanh(const Tensor& x, Scalar min_val, Scalar max_val) {
  return OpBuilder(OpKind::Hardtanh).operand(x).attr("min_val", min_val).attr("max_val", max_val).one();
}

Tensor add(const Tensor& x, const TensorOrScalar& other, Scalar alpha) {
  return OpBuilder(OpKind::Add).operand(x).operand(other).attr("alpha", alpha).one();
}
Tensor sub(const Tensor& x, const TensorOrScalar& other, Scalar alpha) {
  return OpBuilder(OpKind::Sub).operand(x).operand(other).attr("alpha", alpha).one();
}
Tensor mul(const Tensor& x, const TensorOrScalar& other) { return binary(OpKind::Mul, x, other); }
Tensor div(const Tensor& x, const TensorOrScalar& other, std::optional<std::string> rounding_mode) {
  return OpBuilder(OpKind::Div).operand(x).operand(other).attr("rounding_mode", rounding_mode).one();
}
Tensor pow(const Tensor& x, const TensorOrScalar& exponent) { return binary(OpKind::Pow, x, exponent); }
Tensor pow(Scalar x, const Tensor& exponent) {
  return OpBuilder(OpKind::Pow).operand(TensorOrScalar(x)).operand(exponent).one();
}
Tensor maximum(const Tensor& x, const Tensor& other) { return binary(OpKind::Maximum, x, other); }
Tensor minimum(const Tensor& x, const Tensor& other) { return binary(OpKind::Minimum, x, other); }
Tensor remainder(const Tensor& x, const TensorOrScalar& other) { return binary(OpKind::Remainder, x, other); }
Tensor fmod(const Tensor& x, const TensorOrScalar& other) { return binary(OpKind::Fmod, x, other); }
Tensor atan2(const Tensor& x, const Tensor& other) { return binary(OpKind::Atan2, x, other); }
Tensor eq(const Tensor& x, const TensorOrScalar& other) { return binary(OpKind::Eq, x, other); }
Tensor ne(const Tensor& x, const TensorOrScalar& other) { return binary(OpKind::Ne, x, other); }
Tensor lt(const Tensor& x, const TensorOrScalar& other) { return binary(OpKind::Lt, x, other); }
Tensor le(const Tensor& x, const TensorOrScalar& other) { return binary(OpKind::Le, x, other); }
Tensor gt(const Tensor& x, const TensorOrScalar& other) { return binary(OpKind::Gt, x, other); }
Tensor ge(const Tensor& x, const TensorOrScalar& other) { return binary(OpKind::Ge, x, other); }
Tensor logical_and(const Tensor& x, const Tensor& other) { return binary(OpKind::LogicalAnd, x, other); }
Tensor logical_or(const Tensor& x, const Tensor& other) { return binary(OpKind::LogicalOr, x, other); }
Tensor logical_xor(const Tensor& x, const Tensor& other) { return binary(OpKind::LogicalXor, x, other); }
Tensor bitwise_and(const Tensor& x, const TensorOrScalar& other) { return binary(OpKind::BitwiseAnd, x, other); }
Tensor bitwise_or(const Tensor& x, const TensorOrScalar& other) { return binary(OpKind::BitwiseOr, x, other); }
Tensor bitwise_xor(const Tensor& x, const TensorOrScalar& other) { return binary(OpKind::BitwiseXor, x, other); }
Tensor bitwise_left_shift(const Tensor& x, const TensorOrScalar& other) {
  return binary(OpKind::BitwiseLeftShift, x, other);
}
Tensor bitwise_right_shift(const Tensor& x, const TensorOrScalar& other) {
  return binary(OpKind::BitwiseRightShift, x, other);
}

Tensor where(const Tensor& condition, const TensorOrScalar& x, const TensorOrScalar& other) {
  return OpBuilder(OpKind::Where).operand(condition).operand(x).operand(other).one();
}
Tensor clamp(const Tensor& x, Scalar min, Scalar max) {
  return OpBuilder(OpKind::Clamp).operand(x).attr("min", min).attr("max", max).one();
}
Tensor lerp(const Tensor& x, const Tensor& end, const TensorOrScalar& weight) {
  return OpBuilder(OpKind::Lerp).operand(x).operand(end).operand(weight).one();
}
Tensor addcmul(const Tensor& x, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  return OpBuilder(OpKind::Addcmul).operand(x).operand(tensor1).operand(tensor2).attr("value", value).one();
}
Tensor addcdiv(const Tensor& x, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  return OpBuilder(OpKind::Addcdiv).operand(x).operand(tensor1).operand(tensor2).attr("value", value).one();
}

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator+(const Tensor& a, Scalar b) { return add(a, b); }
Tensor operator+(Scalar a, const Tensor& b) { return add(b, a); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator-(const Tensor& a, Scalar b) { return sub(a, b); }
Tensor operator-(Scalar a, const Tensor& b) { return add(neg(b), a); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator*(const Tensor& a, Scalar b) { return mul(a, b); }
Tensor operator*(Scalar a, const Tensor& b) { return mul(b, a); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator/(const Tensor& a, Scalar b) { return div(a, b); }
Tensor operator/(Scalar a, const Tensor& b) { return mul(reciprocal(b), a); }
Tensor operator-(const Tensor& a) { return neg(a); }

}  // namespace kiln
