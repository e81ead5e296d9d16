// Linear algebra, views and layout, and indexing ops of the functional API.
#include "frontend/functional.h"
#include "frontend/op_builder.h"

namespace kiln {

using detail::OpBuilder;

Tensor mm(const Tensor& x, const Tensor& mat2) { return OpBuilder(OpKind::Mm).operand(x).operand(mat2).one(); }
Tensor bmm(const Tensor& x, const Tensor& mat2) { return OpBuilder(OpKind::Bmm).operand(x).operand(mat2).one(); }
Tensor matmul(const Tensor& x, const Tensor& other) {
  return OpBuilder(OpKind::Matmul).operand(x).operand(other).one();
}
Tensor addmm(const Tensor& x, const Tensor& mat1, const Tensor& mat2, Scalar beta, Scalar alpha) {
  return OpBuilder(OpKind::Addmm).operand(x).operand(mat1).operand(mat2).attr("beta", beta).attr("alpha", alpha).one();
}
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  return OpBuilder(OpKind::Linear).operand(input).operand(weight).operand(bias).one();
}
Tensor baddbmm(const Tensor& x, const Tensor& batch1, const Tensor& batch2, Scalar beta, Scalar alpha) {
  return OpBuilder(OpKind::Baddbmm)
      .operand(x).operand(batch1).operand(batch2).attr("beta", beta).attr("alpha", alpha).one();
}

Tensor reshape(const Tensor& x, IntList shape) { return OpBuilder(OpKind::Reshape).operand(x).attr("shape", shape).one(); }
Tensor view(const Tensor& x, IntList size) { return OpBuilder(OpKind::View).operand(x).attr("size", size).one(); }
Tensor permute(const Tensor& x, IntList dims) { return OpBuilder(OpKind::Permute).operand(x).attr("dims", dims).one(); }
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1) {
  return OpBuilder(OpKind::Transpose).operand(x).attr("dim0", dim0).attr("dim1", dim1).one();
}
Tensor t(const Tensor& x) { return OpBuilder(OpKind::T).operand(x).one(); }
Tensor expand(const Tensor& x, IntList size) { return OpBuilder(OpKind::Expand).operand(x).attr("size", size).one(); }
Tensor squeeze(const Tensor& x, std::optional<IntList> dim) {
  return OpBuilder(OpKind::Squeeze).operand(x).attr("dim", dim).one();
}
Tensor unsqueeze(const Tensor& x, int64_t dim) { return OpBuilder(OpKind::Unsqueeze).operand(x).attr("dim", dim).one(); }
Tensor flatten(const Tensor& x, int64_t start_dim, int64_t end_dim) {
  return OpBuilder(OpKind::Flatten).operand(x).attr("start_dim", start_dim).attr("end_dim", end_dim).one();
}
Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  return OpBuilder(OpKind::Slice)
      .operand(x).attr("dim", dim).attr("start", start).attr("end", end).attr("step", step).one();
}
Tensor select(const Tensor& x, int64_t dim, int64_t index) {
  return OpBuilder(OpKind::Select).operand(x).attr("dim", dim).attr("index", index).one();
}
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length) {
  return OpBuilder(OpKind::Narrow).operand(x).attr("dim", dim).attr("start", start).attr("length", length).one();
}
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim) {
  return OpBuilder(OpKind::Split).operand(x).attr("split_size", split_size).attr("dim", dim).many();
}
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  return OpBuilder(OpKind::Chunk).operand(x).attr("chunks", chunks).attr("dim", dim).many();
}
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  return OpBuilder(OpKind::Cat).operands(tensors).attr("dim", dim).one();
}
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  return OpBuilder(OpKind::Stack).operands(tensors).attr("dim", dim).one();
}
Tensor constant_pad_nd(const Tensor& x, IntList pad, Scalar value) {
  return OpBuilder(OpKind::ConstantPadNd).operand(x).attr("pad", pad).attr("value", value).one();
}
Tensor flip(const Tensor& x, IntList dims) { return OpBuilder(OpKind::Flip).operand(x).attr("dims", dims).one(); }
Tensor roll(const Tensor& x, IntList shifts, IntList dims) {
  return OpBuilder(OpKind::Roll).operand(x).attr("shifts", shifts).attr("dims", dims).one();
}
Tensor repeat(const Tensor& x, IntList repeats) {
  return OpBuilder(OpKind::Repeat).operand(x).attr("repeats", repeats).one();
}
Tensor tril(const Tensor& x, int64_t diagonal) {
  return OpBuilder(OpKind::Tril).operand(x).attr("diagonal", diagonal).one();
}
Tensor triu(const Tensor& x, int64_t diagonal) {
  return OpBuilder(OpKind::Triu).operand(x).attr("diagonal", diagonal).one();
}
Tensor clone(const Tensor& x) { return OpBuilder(OpKind::Clone).operand(x).one(); }
Tensor contiguous(const Tensor& x) { return OpBuilder(OpKind::Contiguous).operand(x).one(); }
Tensor to(const Tensor& x, DType dtype) { return OpBuilder(OpKind::ToCopy).operand(x).attr("dtype", dtype).one(); }

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  return OpBuilder(OpKind::IndexSelect).operand(x).attr("dim", dim).operand(index).one();
}
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
  return OpBuilder(OpKind::Gather).operand(x).attr("dim", dim).operand(index).one();
}
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const TensorOrScalar& src) {
  return OpBuilder(OpKind::Scatter).operand(x).attr("dim", dim).operand(index).operand(src).one();
}
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  return OpBuilder(OpKind::ScatterAdd).operand(x).attr("dim", dim).operand(index).operand(src).one();
}
Tensor index(const Tensor& x, const std::vector<Tensor>& indices) {
  return OpBuilder(OpKind::Index).operand(x).operands(indices).one();
}
Tensor index_put(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  return OpBuilder(OpKind::IndexPut).operand(x).operands(indices).operand(values).attr("accumulate", accumulate).one();
}
Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha) {
  return OpBuilder(OpKind::IndexAdd)
      .operand(x).attr("dim", dim).operand(index).operand(source).attr("alpha", alpha).one();
}
Tensor masked_fill(const Tensor& x, const Tensor& mask, const TensorOrScalar& value) {
  return OpBuilder(OpKind::MaskedFill).operand(x).operand(mask).operand(value).one();
}
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx) {
  return OpBuilder(OpKind::Embedding).operand(weight).operand(indices).attr("padding_idx", padding_idx).one();
}

}  // namespace kiln
