#include "interp/slicing.h"

#include "support/check.h"

namespace kiln {

Tensor select_along(const Tensor& t, int dim, int64_t i) {
  KILN_CHECK(dim >= 0 && dim < t.dim() && i >= 0 && i < t.size(dim)) << "select_along(" << dim << ", " << i << ")";
  std::vector<int64_t> sizes = t.sizes(), strides = t.strides();
  const int64_t offset = t.offset() + i * strides[static_cast<size_t>(dim)];
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  return t.as_strided(std::move(sizes), std::move(strides), offset);
}

Tensor stack_along(const std::vector<Tensor>& slices, int dim, const std::string& what) {
  KILN_CHECK(!slices.empty()) << "stack_along of no slices";
  const Tensor& first = slices[0];
  // Every iteration runs the same subgraph on slices of one shape, so the results agree.
  for (size_t i = 1; i < slices.size(); ++i)
    KILN_CHECK(slices[i].type() == first.type())
        << what << ": iteration " << i << " gives " << slices[i].type().to_string() << " but iteration 0 gave "
        << first.type().to_string();
  std::vector<int64_t> sizes = first.sizes();
  KILN_CHECK(dim >= 0 && dim <= static_cast<int>(sizes.size())) << "stack_along dim " << dim;
  sizes.insert(sizes.begin() + dim, static_cast<int64_t>(slices.size()));
  Tensor out = Tensor::empty(sizes, first.dtype());
  for (size_t i = 0; i < slices.size(); ++i) select_along(out, dim, static_cast<int64_t>(i)).copy_from(slices[i]);
  return out;
}

}  // namespace kiln
