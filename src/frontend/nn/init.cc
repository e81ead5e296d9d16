#include "frontend/nn/init.h"

#include <cmath>

namespace kiln::nn {

Tensor uniform_init(const std::vector<int64_t>& sizes, double bound, uint64_t seed) {
  Tensor u = Tensor::rand(sizes, seed, DType::F64);
  std::vector<double> values(static_cast<size_t>(u.numel()));
  for (int64_t i = 0; i < u.numel(); ++i) values[static_cast<size_t>(i)] = (2.0 * u.item_double(i) - 1.0) * bound;
  return Tensor::from_doubles(values, sizes, kDefaultFloat);
}

double fan_in_bound(int64_t fan_in) { return fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0; }

}  // namespace kiln::nn
