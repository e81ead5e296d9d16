// Reductions and scans of the functional API.
#include "frontend/functional.h"
#include "frontend/op_builder.h"

namespace kiln {

using detail::OpBuilder;

Tensor sum(const Tensor& x, IntList dim, bool keepdim, std::optional<DType> dtype, CallSite loc) {
  return OpBuilder(OpKind::Sum, loc).operand(x).dims("dim", dim).attr("keepdim", keepdim).attr("dtype", dtype).one();
}
Tensor mean(const Tensor& x, IntList dim, bool keepdim, std::optional<DType> dtype, CallSite loc) {
  return OpBuilder(OpKind::Mean, loc).operand(x).dims("dim", dim).attr("keepdim", keepdim).attr("dtype", dtype).one();
}
Tensor prod(const Tensor& x, std::optional<int64_t> dim, bool keepdim, std::optional<DType> dtype, CallSite loc) {
  return OpBuilder(OpKind::Prod, loc).operand(x).attr("dim", dim).attr("keepdim", keepdim).attr("dtype", dtype).one();
}
Tensor amax(const Tensor& x, IntList dim, bool keepdim, CallSite loc) {
  return OpBuilder(OpKind::Amax, loc).operand(x).attr("dim", dim).attr("keepdim", keepdim).one();
}
Tensor amin(const Tensor& x, IntList dim, bool keepdim, CallSite loc) {
  return OpBuilder(OpKind::Amin, loc).operand(x).attr("dim", dim).attr("keepdim", keepdim).one();
}
Tensor var(const Tensor& x, IntList dim, Scalar correction, bool keepdim, CallSite loc) {
  return OpBuilder(OpKind::Var, loc)
      .operand(x)
      .dims("dim", dim)
      .attr("correction", correction)
      .attr("keepdim", keepdim)
      .one();
}
Tensor std(const Tensor& x, IntList dim, Scalar correction, bool keepdim, CallSite loc) {
  return OpBuilder(OpKind::Std, loc)
      .operand(x)
      .dims("dim", dim)
      .attr("correction", correction)
      .attr("keepdim", keepdim)
      .one();
}
Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim, CallSite loc) {
  return OpBuilder(OpKind::Argmax, loc).operand(x).attr("dim", dim).attr("keepdim", keepdim).one();
}
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim, CallSite loc) {
  return OpBuilder(OpKind::Argmin, loc).operand(x).attr("dim", dim).attr("keepdim", keepdim).one();
}
Tensor logsumexp(const Tensor& x, IntList dim, bool keepdim, CallSite loc) {
  return OpBuilder(OpKind::Logsumexp, loc).operand(x).attr("dim", dim).attr("keepdim", keepdim).one();
}
Tensor any(const Tensor& x, IntList dim, bool keepdim, CallSite loc) {
  return OpBuilder(OpKind::Any, loc).operand(x).dims("dim", dim).attr("keepdim", keepdim).one();
}
Tensor all(const Tensor& x, IntList dim, bool keepdim, CallSite loc) {
  return OpBuilder(OpKind::All, loc).operand(x).dims("dim", dim).attr("keepdim", keepdim).one();
}
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<DType> dtype, CallSite loc) {
  return OpBuilder(OpKind::Cumsum, loc).operand(x).attr("dim", dim).attr("dtype", dtype).one();
}
std::vector<Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted, CallSite loc) {
  return OpBuilder(OpKind::Topk, loc)
      .operand(x)
      .attr("k", k)
      .attr("dim", dim)
      .attr("largest", largest)
      .attr("sorted", sorted)
      .many();
}
std::vector<Tensor> sort(const Tensor& x, int64_t dim, bool descending, bool stable, CallSite loc) {
  return OpBuilder(OpKind::Sort, loc)
      .operand(x)
      .attr("dim", dim)
      .attr("descending", descending)
      .attr("stable", stable)
      .many();
}
Tensor histc(const Tensor& x, int64_t bins, Scalar min, Scalar max, CallSite loc) {
  return OpBuilder(OpKind::Histc, loc).operand(x).attr("bins", bins).attr("min", min).attr("max", max).one();
}

}  // namespace kiln
