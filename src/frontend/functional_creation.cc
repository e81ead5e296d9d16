// Creation and in-place ops of the functional API.
#include "frontend/functional.h"
#include "frontend/op_builder.h"

namespace kiln {

using detail::OpBuilder;

Tensor full(IntList size, Scalar fill_value, std::optional<DType> dtype) {
  return OpBuilder(OpKind::Full).attr("size", size).attr("fill_value", fill_value).attr("dtype", dtype).one();
}
Tensor zeros(IntList size, std::optional<DType> dtype) {
  return OpBuilder(OpKind::Zeros).attr("size", size).attr("dtype", dtype).one();
}
Tensor ones(IntList size, std::optional<DType> dtype) {
  return OpBuilder(OpKind::Ones).attr("size", size).attr("dtype", dtype).one();
}
Tensor empty(IntList size, std::optional<DType> dtype) {
  return OpBuilder(OpKind::Empty).attr("size", size).attr("dtype", dtype).one();
}
Tensor arange(Scalar end, std::optional<DType> dtype) { return arange(0, end, 1, dtype); }
Tensor arange(Scalar start, Scalar end, Scalar step, std::optional<DType> dtype) {
  return OpBuilder(OpKind::Arange)
      .attr("start", start).attr("end", end).attr("step", step).attr("dtype", dtype).one();
}
Tensor rand(IntList size, int64_t seed, std::optional<DType> dtype) {
  return OpBuilder(OpKind::Rand).attr("size", size).attr("seed", seed).attr("dtype", dtype).one();
}
Tensor randn(IntList size, int64_t seed, std::optional<DType> dtype) {
  return OpBuilder(OpKind::Randn).attr("size", size).attr("seed", seed).attr("dtype", dtype).one();
}
Tensor randint(int64_t low, int64_t high, IntList size, int64_t seed, std::optional<DType> dtype) {
  return OpBuilder(OpKind::Randint)
      .attr("low", low).attr("high", high).attr("size", size).attr("seed", seed).attr("dtype", dtype).one();
}
Tensor randperm(int64_t n, int64_t seed, std::optional<DType> dtype) {
  return OpBuilder(OpKind::Randperm).attr("n", n).attr("seed", seed).attr("dtype", dtype).one();
}
Tensor full_like(const Tensor& x, Scalar fill_value, std::optional<DType> dtype) {
  return OpBuilder(OpKind::FullLike).operand(x).attr("fill_value", fill_value).attr("dtype", dtype).one();
}
Tensor zeros_like(const Tensor& x, std::optional<DType> dtype) {
  return OpBuilder(OpKind::ZerosLike).operand(x).attr("dtype", dtype).one();
}
Tensor ones_like(const Tensor& x, std::optional<DType> dtype) {
  return OpBuilder(OpKind::OnesLike).operand(x).attr("dtype", dtype).one();
}

Tensor add_(const Tensor& x, const TensorOrScalar& other, Scalar alpha) {
  return OpBuilder(OpKind::AddInplace).operand(x).operand(other).attr("alpha", alpha).one();
}
Tensor sub_(const Tensor& x, const TensorOrScalar& other, Scalar alpha) {
  return OpBuilder(OpKind::SubInplace).operand(x).operand(other).attr("alpha", alpha).one();
}
Tensor mul_(const Tensor& x, const TensorOrScalar& other) {
  return OpBuilder(OpKind::MulInplace).operand(x).operand(other).one();
}
Tensor div_(const Tensor& x, const TensorOrScalar& other, std::optional<std::string> rounding_mode) {
  return OpBuilder(OpKind::DivInplace).operand(x).operand(other).attr("rounding_mode", rounding_mode).one();
}
Tensor copy_(const Tensor& x, const Tensor& src) { return OpBuilder(OpKind::CopyInplace).operand(x).operand(src).one(); }
Tensor fill_(const Tensor& x, const TensorOrScalar& value) {
  return OpBuilder(OpKind::FillInplace).operand(x).operand(value).one();
}
Tensor zero_(const Tensor& x) { return OpBuilder(OpKind::ZeroInplace).operand(x).one(); }
Tensor relu_(const Tensor& x) { return OpBuilder(OpKind::ReluInplace).operand(x).one(); }
Tensor clamp_(const Tensor& x, Scalar min, Scalar max) {
  return OpBuilder(OpKind::ClampInplace).operand(x).attr("min", min).attr("max", max).one();
}
Tensor masked_fill_(const Tensor& x, const Tensor& mask, const TensorOrScalar& value) {
  return OpBuilder(OpKind::MaskedFillInplace).operand(x).operand(mask).operand(value).one();
}
Tensor index_put_(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  return OpBuilder(OpKind::IndexPutInplace)
      .operand(x).operands(indices).operand(values).attr("accumulate", accumulate).one();
}

}  // namespace kiln
