#include "frontend/nn/batch_norm2d.h"

#include "frontend/functional.h"
#include "frontend/nn/arguments.h"

namespace kiln::nn {

BatchNorm2d::BatchNorm2d(int64_t num_features, double eps, double momentum) : eps(eps), momentum(momentum) {
  check_size_arg("BatchNorm2d", "num_features", num_features);
  weight = register_parameter("weight", Tensor::full({num_features}, 1.0));
  bias = register_parameter("bias", Tensor::zeros({num_features}));
  running_mean = register_buffer("running_mean", Tensor::zeros({num_features}));
  running_var = register_buffer("running_var", Tensor::full({num_features}, 1.0));
}

Tensor BatchNorm2d::forward(const Tensor& x, CallSite loc) {
  if (!is_training()) return batch_norm(x, weight, bias, running_mean, running_var, false, momentum, eps, loc);
  Tensor y = batch_norm(x, weight, bias, running_mean, running_var, true, momentum, eps, loc);
  const IntList reduced = {0, 2, 3};
  Tensor batch_mean = mean(x, reduced, false, std::nullopt, loc);
  Tensor batch_var = var(x, reduced, Scalar::none(), false, loc);
  copy_(running_mean, add(mul(running_mean, 1.0 - momentum, loc), mul(batch_mean, momentum, loc), 1, loc), loc);
  copy_(running_var, add(mul(running_var, 1.0 - momentum, loc), mul(batch_var, momentum, loc), 1, loc), loc);
  return y;
}

}  // namespace kiln::nn
