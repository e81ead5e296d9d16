#include "frontend/nn/rms_norm.h"

#include "frontend/functional.h"
#include "frontend/nn/arguments.h"

namespace kiln::nn {

RMSNorm::RMSNorm(std::vector<int64_t> normalized_shape, std::optional<double> eps, bool elementwise_affine)
    : normalized_shape(std::move(normalized_shape)), eps(eps) {
  check_shape_arg("RMSNorm", "normalized_shape", this->normalized_shape);
  if (elementwise_affine) weight = register_parameter("weight", Tensor::full(this->normalized_shape, 1.0));
}

Tensor RMSNorm::forward(const Tensor& x, CallSite loc) { return rms_norm(x, normalized_shape, weight, eps, loc); }

}  // namespace kiln::nn
