// The op methods declared at the bottom of core/tensor.h: thin forwards to the functional API,
// so `x.sum({1}, true)` and `sum(x, {1}, true)` run and record the same op.
#include "core/tensor.h"
#include "frontend/functional.h"

namespace kiln {

Tensor Tensor::sum(std::vector<int64_t> dim, bool keepdim) const { return kiln::sum(*this, std::move(dim), keepdim); }
Tensor Tensor::mean(std::vector<int64_t> dim, bool keepdim) const { return kiln::mean(*this, std::move(dim), keepdim); }
Tensor Tensor::amax(std::vector<int64_t> dim, bool keepdim) const { return kiln::amax(*this, std::move(dim), keepdim); }
Tensor Tensor::reshape(std::vector<int64_t> shape) const { return kiln::reshape(*this, std::move(shape)); }
Tensor Tensor::view(std::vector<int64_t> shape) const { return kiln::view(*this, std::move(shape)); }
Tensor Tensor::permute(std::vector<int64_t> dims) const { return kiln::permute(*this, std::move(dims)); }
Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const { return kiln::transpose(*this, dim0, dim1); }
Tensor Tensor::t() const { return kiln::t(*this); }
Tensor Tensor::unsqueeze(int64_t dim) const { return kiln::unsqueeze(*this, dim); }
Tensor Tensor::squeeze(std::optional<int64_t> dim) const {
  if (!dim) return kiln::squeeze(*this);
  return kiln::squeeze(*this, IntList{*dim});
}
Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const { return kiln::flatten(*this, start_dim, end_dim); }
Tensor Tensor::expand(std::vector<int64_t> sizes) const { return kiln::expand(*this, std::move(sizes)); }
Tensor Tensor::matmul(const Tensor& other) const { return kiln::matmul(*this, other); }
Tensor Tensor::softmax(int64_t dim) const { return kiln::softmax(*this, dim); }
Tensor Tensor::relu() const { return kiln::relu(*this); }
Tensor Tensor::exp() const { return kiln::exp(*this); }
Tensor Tensor::neg() const { return kiln::neg(*this); }
Tensor Tensor::pow(Scalar exponent) const { return kiln::pow(*this, exponent); }
Tensor Tensor::to_dtype(DType dtype) const { return kiln::to(*this, dtype); }

}  // namespace kiln
