#include "ops/kernel_util.h"

#include "core/half.h"
#include "support/check.h"

namespace kiln {

std::vector<int64_t> broadcast_strides(const Tensor& t, const std::vector<int64_t>& sizes) {
  return broadcast_strides(t.sizes(), t.strides(), sizes);
}

std::vector<int64_t> broadcast_strides(const std::vector<int64_t>& ts, const std::vector<int64_t>& st,
                                       const std::vector<int64_t>& sizes) {
  KILN_CHECK(ts.size() <= sizes.size()) << "broadcast_strides: rank " << ts.size() << " > " << sizes.size();
  std::vector<int64_t> out(sizes.size(), 0);
  size_t lead = sizes.size() - ts.size();
  for (size_t i = 0; i < ts.size(); ++i) {
    KILN_CHECK(ts[i] == sizes[lead + i] || ts[i] == 1)
        << "broadcast_strides: size " << ts[i] << " vs " << sizes[lead + i];
    out[lead + i] = ts[i] == 1 && sizes[lead + i] != 1 ? 0 : st[i];
  }
  return out;
}

// The batch dims' strides come from t's layout, not from a view of them: a view of an empty
// t's batch dims alone would lie outside its (empty) storage.
Tensor broadcast_batch(const Tensor& t, const std::vector<int64_t>& batch) {
  const size_t r = t.sizes().size();
  const std::vector<int64_t> lead_sizes(t.sizes().begin(), t.sizes().end() - 2);
  const std::vector<int64_t> lead_strides(t.strides().begin(), t.strides().end() - 2);
  std::vector<int64_t> sizes = batch, strides = broadcast_strides(lead_sizes, lead_strides, batch);
  for (size_t i = r - 2; i < r; ++i) {
    sizes.push_back(t.sizes()[i]);
    strides.push_back(t.strides()[i]);
  }
  return t.as_strided(sizes, strides, t.offset());
}

Tensor new_result(const KernelCall& call, int i) {
  const TensorType& t = call.result_types[static_cast<size_t>(i)];
  return Tensor::empty(t.shape.sizes(), t.dtype);
}

double round_to_dtype(double v, DType t) {
  switch (t) {
    case DType::F32: return static_cast<double>(static_cast<float>(v));
    case DType::F16: return static_cast<double>(static_cast<float>(Half(static_cast<float>(v))));
    case DType::BF16: return static_cast<double>(static_cast<float>(BFloat16(static_cast<float>(v))));
    default: return v;
  }
}

}  // namespace kiln
