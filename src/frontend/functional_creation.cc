// Creation and in-place ops of the functional API.
#include "frontend/functional.h"
#include "frontend/op_builder.h"

namespace kiln {

using detail::OpBuilder;

Tensor full(IntList size, Scalar fill_value, std::optional<DType> dtype, CallSite loc) {
  return OpBuilder(OpKind::Full, loc).attr("size", size).attr("fill_value", fill_value).attr("dtype", dtype).one();
}
Tensor zeros(IntList size, std::optional<DType> dtype, CallSite loc) {
  return OpBuilder(OpKind::Zeros, loc).attr("size", size).attr("dtype", dtype).one();
}
Tensor ones(IntList size, std::optional<DType> dtype, CallSite loc) {
  return OpBuilder(OpKind::Ones, loc).attr("size", size).attr("dtype", dtype).one();
}
Tensor empty(IntList size, std::optional<DType> dtype, CallSite loc) {
  return OpBuilder(OpKind::Empty, loc).attr("size", size).attr("dtype", dtype).one();
}
Tensor arange(Scalar end, std::optional<DType> dtype, CallSite loc) { return arange(0, end, 1, dtype, loc); }
Tensor arange(Scalar start, Scalar end, Scalar step, std::optional<DType> dtype, CallSite loc) {
  return OpBuilder(OpKind::Arange, loc)
      .attr("start", start)
      .attr("end", end)
      .attr("step", step)
      .attr("dtype", dtype)
      .one();
}
Tensor rand(IntList size, int64_t seed, std::optional<DType> dtype, CallSite loc) {
  return OpBuilder(OpKind::Rand, loc).attr("size", size).attr("seed", seed).attr("dtype", dtype).one();
}
Tensor randn(IntList size, int64_t seed, std::optional<DType> dtype, CallSite loc) {
  return OpBuilder(OpKind::Randn, loc).attr("size", size).attr("seed", seed).attr("dtype", dtype).one();
}
Tensor randint(int64_t low, int64_t high, IntList size, int64_t seed, std::optional<DType> dtype, CallSite loc) {
  return OpBuilder(OpKind::Randint, loc)
      .attr("low", low)
      .attr("high", high)
      .attr("size", size)
      .attr("seed", seed)
      .attr("dtype", dtype)
      .one();
}
Tensor randperm(int64_t n, int64_t seed, std::optional<DType> dtype, CallSite loc) {
  return OpBuilder(OpKind::Randperm, loc).attr("n", n).attr("seed", seed).attr("dtype", dtype).one();
}
Tensor full_like(const Tensor& x, Scalar fill_value, std::optional<DType> dtype, CallSite loc) {
  return OpBuilder(OpKind::FullLike, loc).operand(x).attr("fill_value", fill_value).attr("dtype", dtype).one();
}
Tensor zeros_like(const Tensor& x, std::optional<DType> dtype, CallSite loc) {
  return OpBuilder(OpKind::ZerosLike, loc).operand(x).attr("dtype", dtype).one();
}
Tensor ones_like(const Tensor& x, std::optional<DType> dtype, CallSite loc) {
  return OpBuilder(OpKind::OnesLike, loc).operand(x).attr("dtype", dtype).one();
}

Tensor add_(const Tensor& x, const TensorOrScalar& other, Scalar alpha, CallSite loc) {
  return OpBuilder(OpKind::AddInplace, loc).operand(x).operand(other).attr("alpha", alpha).one();
}
Tensor sub_(const Tensor& x, const TensorOrScalar& other, Scalar alpha, CallSite loc) {
  return OpBuilder(OpKind::SubInplace, loc).operand(x).operand(other).attr("alpha", alpha).one();
}
Tensor mul_(const Tensor& x, const TensorOrScalar& other, CallSite loc) {
  return OpBuilder(OpKind::MulInplace, loc).operand(x).operand(other).one();
}
Tensor div_(const Tensor& x, const TensorOrScalar& other, std::optional<std::string> rounding_mode, CallSite loc) {
  return OpBuilder(OpKind::DivInplace, loc).operand(x).operand(other).attr("rounding_mode", rounding_mode).one();
}
Tensor copy_(const Tensor& x, const Tensor& src, CallSite loc) {
  return OpBuilder(OpKind::CopyInplace, loc).operand(x).operand(src).one();
}
Tensor fill_(const Tensor& x, const TensorOrScalar& value, CallSite loc) {
  return OpBuilder(OpKind::FillInplace, loc).operand(x).operand(value).one();
}
Tensor zero_(const Tensor& x, CallSite loc) { return OpBuilder(OpKind::ZeroInplace, loc).operand(x).one(); }
Tensor relu_(const Tensor& x, CallSite loc) { return OpBuilder(OpKind::ReluInplace, loc).operand(x).one(); }
Tensor clamp_(const Tensor& x, Scalar min, Scalar max, CallSite loc) {
  return OpBuilder(OpKind::ClampInplace, loc).operand(x).attr("min", min).attr("max", max).one();
}
Tensor masked_fill_(const Tensor& x, const Tensor& mask, const TensorOrScalar& value, CallSite loc) {
  return OpBuilder(OpKind::MaskedFillInplace, loc).operand(x).operand(mask).operand(value).one();
}
Tensor index_put_(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate,
                  CallSite loc) {
  return OpBuilder(OpKind::IndexPutInplace, loc)
      .operand(x)
      .operands(indices)
      .operand(values)
      .attr("accumulate", accumulate)
      .one();
}

}  // namespace kiln
