#include "frontend/nn/layer_norm.h"

#include "frontend/functional.h"
#include "frontend/nn/arguments.h"

namespace kiln::nn {

LayerNorm::LayerNorm(std::vector<int64_t> normalized_shape, double eps, bool elementwise_affine)
    : normalized_shape(std::move(normalized_shape)), eps(eps) {
  check_shape_arg("LayerNorm", "normalized_shape", this->normalized_shape);
  if (!elementwise_affine) return;
  weight = register_parameter("weight", Tensor::full(this->normalized_shape, 1.0));
  bias = register_parameter("bias", Tensor::zeros(this->normalized_shape));
}

Tensor LayerNorm::forward(const Tensor& x, CallSite loc) {
  return layer_norm(x, normalized_shape, weight, bias, eps, loc);
}

}  // namespace kiln::nn
