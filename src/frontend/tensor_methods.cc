// The op methods declared at the bottom of core/tensor.h: thin forwards to the functional API,
// so `x.sum({1}, true)` and `sum(x, {1}, true)` run and record the same op.
#include "core/tensor.h"
#include "frontend/functional.h"

namespace kiln {

Tensor Tensor::sum(std::vector<int64_t> dim, bool keepdim, CallSite loc) const {
  return kiln::sum(*this, std::move(dim), keepdim, std::nullopt, loc);
}
Tensor Tensor::mean(std::vector<int64_t> dim, bool keepdim, CallSite loc) const {
  return kiln::mean(*this, std::move(dim), keepdim, std::nullopt, loc);
}
Tensor Tensor::amax(std::vector<int64_t> dim, bool keepdim, CallSite loc) const {
  return kiln::amax(*this, std::move(dim), keepdim, loc);
}
Tensor Tensor::reshape(std::vector<int64_t> shape, CallSite loc) const {
  return kiln::reshape(*this, std::move(shape), loc);
}
Tensor Tensor::view(std::vector<int64_t> shape, CallSite loc) const { return kiln::view(*this, std::move(shape), loc); }
Tensor Tensor::permute(std::vector<int64_t> dims, CallSite loc) const {
  return kiln::permute(*this, std::move(dims), loc);
}
Tensor Tensor::transpose(int64_t dim0, int64_t dim1, CallSite loc) const {
  return kiln::transpose(*this, dim0, dim1, loc);
}
Tensor Tensor::t(CallSite loc) const { return kiln::t(*this, loc); }
Tensor Tensor::unsqueeze(int64_t dim, CallSite loc) const { return kiln::unsqueeze(*this, dim, loc); }
Tensor Tensor::squeeze(std::optional<int64_t> dim, CallSite loc) const {
  if (!dim) return kiln::squeeze(*this, std::nullopt, loc);
  return kiln::squeeze(*this, IntList{*dim}, loc);
}
Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim, CallSite loc) const {
  return kiln::flatten(*this, start_dim, end_dim, loc);
}
Tensor Tensor::expand(std::vector<int64_t> sizes, CallSite loc) const {
  return kiln::expand(*this, std::move(sizes), loc);
}
Tensor Tensor::matmul(const Tensor& other, CallSite loc) const { return kiln::matmul(*this, other, loc); }
Tensor Tensor::softmax(int64_t dim, CallSite loc) const { return kiln::softmax(*this, dim, std::nullopt, loc); }
Tensor Tensor::relu(CallSite loc) const { return kiln::relu(*this, loc); }
Tensor Tensor::exp(CallSite loc) const { return kiln::exp(*this, loc); }
Tensor Tensor::neg(CallSite loc) const { return kiln::neg(*this, loc); }
Tensor Tensor::pow(Scalar exponent, CallSite loc) const { return kiln::pow(*this, exponent, loc); }
Tensor Tensor::to_dtype(DType dtype, CallSite loc) const { return kiln::to(*this, dtype, loc); }

}  // namespace kiln
