// Reductions and scans of the functional API.
#include "frontend/functional.h"
#include "frontend/op_builder.h"

namespace kiln {

using detail::OpBuilder;

Tensor sum(const Tensor& x, IntList dim, bool keepdim, std::optional<DType> dtype) {
  return OpBuilder(OpKind::Sum).operand(x).dims("dim", dim).attr("keepdim", keepdim).attr("dtype", dtype).one();
}
Tensor mean(const Tensor& x, IntList dim, bool keepdim, std::optional<DType> dtype) {
  return OpBuilder(OpKind::Mean).operand(x).dims("dim", dim).attr("keepdim", keepdim).attr("dtype", dtype).one();
}
Tensor prod(const Tensor& x, std::optional<int64_t> dim, bool keepdim, std::optional<DType> dtype) {
  return OpBuilder(OpKind::Prod).operand(x).attr("dim", dim).attr("keepdim", keepdim).attr("dtype", dtype).one();
}
Tensor amax(const Tensor& x, IntList dim, bool keepdim) {
  return OpBuilder(OpKind::Amax).operand(x).attr("dim", dim).attr("keepdim", keepdim).one();
}
Tensor amin(const Tensor& x, IntList dim, bool keepdim) {
  return OpBuilder(OpKind::Amin).operand(x).attr("dim", dim).attr("keepdim", keepdim).one();
}
Tensor var(const Tensor& x, IntList dim, Scalar correction, bool keepdim) {
  return OpBuilder(OpKind::Var).operand(x).dims("dim", dim).attr("correction", correction).attr("keepdim", keepdim).one();
}
Tensor std(const Tensor& x, IntList dim, Scalar correction, bool keepdim) {
  return OpBuilder(OpKind::Std).operand(x).dims("dim", dim).attr("correction", correction).attr("keepdim", keepdim).one();
}
Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return OpBuilder(OpKind::Argmax).operand(x).attr("dim", dim).attr("keepdim", keepdim).one();
}
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return OpBuilder(OpKind::Argmin).operand(x).attr("dim", dim).attr("keepdim", keepdim).one();
}
Tensor logsumexp(const Tensor& x, IntList dim, bool keepdim) {
  return OpBuilder(OpKind::Logsumexp).operand(x).attr("dim", dim).attr("keepdim", keepdim).one();
}
Tensor any(const Tensor& x, IntList dim, bool keepdim) {
  return OpBuilder(OpKind::Any).operand(x).dims("dim", dim).attr("keepdim", keepdim).one();
}
Tensor all(const Tensor& x, IntList dim, bool keepdim) {
  return OpBuilder(OpKind::All).operand(x).dims("dim", dim).attr("keepdim", keepdim).one();
}
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  return OpBuilder(OpKind::Cumsum).operand(x).attr("dim", dim).attr("dtype", dtype).one();
}

}  // namespace kiln
