// Linear algebra, views and layout, and indexing ops of the functional API.
#include "frontend/functional.h"
#include "frontend/op_builder.h"

namespace kiln {

using detail::OpBuilder;

Tensor mm(const Tensor& x, const Tensor& mat2, CallSite loc) {
  return OpBuilder(OpKind::Mm, loc).operand(x).operand(mat2).one();
}
Tensor bmm(const Tensor& x, const Tensor& mat2, CallSite loc) {
  return OpBuilder(OpKind::Bmm, loc).operand(x).operand(mat2).one();
}
Tensor matmul(const Tensor& x, const Tensor& other, CallSite loc) {
  return OpBuilder(OpKind::Matmul, loc).operand(x).operand(other).one();
}
Tensor addmm(const Tensor& x, const Tensor& mat1, const Tensor& mat2, Scalar beta, Scalar alpha, CallSite loc) {
  return OpBuilder(OpKind::Addmm, loc)
      .operand(x)
      .operand(mat1)
      .operand(mat2)
      .attr("beta", beta)
      .attr("alpha", alpha)
      .one();
}
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias, CallSite loc) {
  return OpBuilder(OpKind::Linear, loc).operand(input).operand(weight).operand(bias).one();
}
Tensor baddbmm(const Tensor& x, const Tensor& batch1, const Tensor& batch2, Scalar beta, Scalar alpha, CallSite loc) {
  return OpBuilder(OpKind::Baddbmm, loc)
      .operand(x)
      .operand(batch1)
      .operand(batch2)
      .attr("beta", beta)
      .attr("alpha", alpha)
      .one();
}

Tensor reshape(const Tensor& x, IntList shape, CallSite loc) {
  return OpBuilder(OpKind::Reshape, loc).operand(x).attr("shape", shape).one();
}
Tensor view(const Tensor& x, IntList size, CallSite loc) {
  return OpBuilder(OpKind::View, loc).operand(x).attr("size", size).one();
}
Tensor permute(const Tensor& x, IntList dims, CallSite loc) {
  return OpBuilder(OpKind::Permute, loc).operand(x).attr("dims", dims).one();
}
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1, CallSite loc) {
  return OpBuilder(OpKind::Transpose, loc).operand(x).attr("dim0", dim0).attr("dim1", dim1).one();
}
Tensor t(const Tensor& x, CallSite loc) { return OpBuilder(OpKind::T, loc).operand(x).one(); }
Tensor expand(const Tensor& x, IntList size, CallSite loc) {
  return OpBuilder(OpKind::Expand, loc).operand(x).attr("size", size).one();
}
Tensor squeeze(const Tensor& x, std::optional<IntList> dim, CallSite loc) {
  return OpBuilder(OpKind::Squeeze, loc).operand(x).attr("dim", dim).one();
}
Tensor unsqueeze(const Tensor& x, int64_t dim, CallSite loc) {
  return OpBuilder(OpKind::Unsqueeze, loc).operand(x).attr("dim", dim).one();
}
Tensor flatten(const Tensor& x, int64_t start_dim, int64_t end_dim, CallSite loc) {
  return OpBuilder(OpKind::Flatten, loc).operand(x).attr("start_dim", start_dim).attr("end_dim", end_dim).one();
}
Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step,
             CallSite loc) {
  return OpBuilder(OpKind::Slice, loc)
      .operand(x)
      .attr("dim", dim)
      .attr("start", start)
      .attr("end", end)
      .attr("step", step)
      .one();
}
Tensor select(const Tensor& x, int64_t dim, int64_t index, CallSite loc) {
  return OpBuilder(OpKind::Select, loc).operand(x).attr("dim", dim).attr("index", index).one();
}
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length, CallSite loc) {
  return OpBuilder(OpKind::Narrow, loc).operand(x).attr("dim", dim).attr("start", start).attr("length", length).one();
}
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim, CallSite loc) {
  return OpBuilder(OpKind::Split, loc).operand(x).attr("split_size", split_size).attr("dim", dim).many();
}
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim, CallSite loc) {
  return OpBuilder(OpKind::Chunk, loc).operand(x).attr("chunks", chunks).attr("dim", dim).many();
}
Tensor as_strided(const Tensor& x, IntList size, IntList stride, std::optional<int64_t> storage_offset, CallSite loc) {
  return OpBuilder(OpKind::AsStrided, loc)
      .operand(x)
      .attr("size", size)
      .attr("stride", stride)
      .attr("storage_offset", storage_offset)
      .one();
}
Tensor slice_scatter(const Tensor& x, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                     std::optional<int64_t> end, int64_t step, CallSite loc) {
  return OpBuilder(OpKind::SliceScatter, loc)
      .operand(x)
      .operand(src)
      .attr("dim", dim)
      .attr("start", start)
      .attr("end", end)
      .attr("step", step)
      .one();
}
Tensor select_scatter(const Tensor& x, const Tensor& src, int64_t dim, int64_t index, CallSite loc) {
  return OpBuilder(OpKind::SelectScatter, loc).operand(x).operand(src).attr("dim", dim).attr("index", index).one();
}
Tensor as_strided_scatter(const Tensor& x, const Tensor& src, IntList size, IntList stride,
                          std::optional<int64_t> storage_offset, CallSite loc) {
  return OpBuilder(OpKind::AsStridedScatter, loc)
      .operand(x)
      .operand(src)
      .attr("size", size)
      .attr("stride", stride)
      .attr("storage_offset", storage_offset)
      .one();
}
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim, CallSite loc) {
  return OpBuilder(OpKind::Cat, loc).operands(tensors).attr("dim", dim).one();
}
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim, CallSite loc) {
  return OpBuilder(OpKind::Stack, loc).operands(tensors).attr("dim", dim).one();
}
Tensor constant_pad_nd(const Tensor& x, IntList pad, Scalar value, CallSite loc) {
  return OpBuilder(OpKind::ConstantPadNd, loc).operand(x).attr("pad", pad).attr("value", value).one();
}
Tensor flip(const Tensor& x, IntList dims, CallSite loc) {
  return OpBuilder(OpKind::Flip, loc).operand(x).attr("dims", dims).one();
}
Tensor roll(const Tensor& x, IntList shifts, IntList dims, CallSite loc) {
  return OpBuilder(OpKind::Roll, loc).operand(x).attr("shifts", shifts).attr("dims", dims).one();
}
Tensor repeat(const Tensor& x, IntList repeats, CallSite loc) {
  return OpBuilder(OpKind::Repeat, loc).operand(x).attr("repeats", repeats).one();
}
Tensor tril(const Tensor& x, int64_t diagonal, CallSite loc) {
  return OpBuilder(OpKind::Tril, loc).operand(x).attr("diagonal", diagonal).one();
}
Tensor triu(const Tensor& x, int64_t diagonal, CallSite loc) {
  return OpBuilder(OpKind::Triu, loc).operand(x).attr("diagonal", diagonal).one();
}
Tensor clone(const Tensor& x, CallSite loc) { return OpBuilder(OpKind::Clone, loc).operand(x).one(); }
Tensor contiguous(const Tensor& x, CallSite loc) { return OpBuilder(OpKind::Contiguous, loc).operand(x).one(); }
Tensor to(const Tensor& x, DType dtype, CallSite loc) {
  return OpBuilder(OpKind::ToCopy, loc).operand(x).attr("dtype", dtype).one();
}

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index, CallSite loc) {
  return OpBuilder(OpKind::IndexSelect, loc).operand(x).attr("dim", dim).operand(index).one();
}
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index, CallSite loc) {
  return OpBuilder(OpKind::Gather, loc).operand(x).attr("dim", dim).operand(index).one();
}
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const TensorOrScalar& src, CallSite loc) {
  return OpBuilder(OpKind::Scatter, loc).operand(x).attr("dim", dim).operand(index).operand(src).one();
}
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src, CallSite loc) {
  return OpBuilder(OpKind::ScatterAdd, loc).operand(x).attr("dim", dim).operand(index).operand(src).one();
}
Tensor index(const Tensor& x, const std::vector<Tensor>& indices, CallSite loc) {
  return OpBuilder(OpKind::Index, loc).operand(x).operands(indices).one();
}
Tensor index_put(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate,
                 CallSite loc) {
  return OpBuilder(OpKind::IndexPut, loc)
      .operand(x)
      .operands(indices)
      .operand(values)
      .attr("accumulate", accumulate)
      .one();
}
Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha, CallSite loc) {
  return OpBuilder(OpKind::IndexAdd, loc)
      .operand(x)
      .attr("dim", dim)
      .operand(index)
      .operand(source)
      .attr("alpha", alpha)
      .one();
}
Tensor masked_fill(const Tensor& x, const Tensor& mask, const TensorOrScalar& value, CallSite loc) {
  return OpBuilder(OpKind::MaskedFill, loc).operand(x).operand(mask).operand(value).one();
}
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, CallSite loc) {
  return OpBuilder(OpKind::Embedding, loc).operand(weight).operand(indices).attr("padding_idx", padding_idx).one();
}

}  // namespace kiln
