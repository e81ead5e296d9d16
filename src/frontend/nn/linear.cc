#include "frontend/nn/linear.h"

#include "frontend/functional.h"
#include "frontend/nn/arguments.h"
#include "frontend/nn/init.h"

namespace kiln::nn {

Linear::Linear(int64_t in_features, int64_t out_features, bool bias, uint64_t seed) {
  check_size_arg("Linear", "in_features", in_features);
  check_size_arg("Linear", "out_features", out_features);
  const double bound = fan_in_bound(in_features);
  weight = register_parameter("weight", uniform_init({out_features, in_features}, bound, seed));
  if (bias) this->bias = register_parameter("bias", uniform_init({out_features}, bound, seed + 1));
}

Tensor Linear::forward(const Tensor& x, CallSite loc) { return linear(x, weight, bias, loc); }

}  // namespace kiln::nn
