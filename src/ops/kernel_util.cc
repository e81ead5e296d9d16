#include "ops/kernel_util.h"

#include "core/half.h"
#include "support/check.h"

namespace kiln {

std::vector<int64_t> broadcast_strides(const Tensor& t, const std::vector<int64_t>& sizes) {
  const auto& ts = t.sizes();
  const auto& st = t.strides();
  KILN_CHECK(ts.size() <= sizes.size()) << "broadcast_strides: rank " << ts.size() << " > " << sizes.size();
  std::vector<int64_t> out(sizes.size(), 0);
  size_t lead = sizes.size() - ts.size();
  for (size_t i = 0; i < ts.size(); ++i) {
    KILN_CHECK(ts[i] == sizes[lead + i] || ts[i] == 1) << "broadcast_strides: size " << ts[i] << " vs " << sizes[lead + i];
    out[lead + i] = ts[i] == 1 && sizes[lead + i] != 1 ? 0 : st[i];
  }
  return out;
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
