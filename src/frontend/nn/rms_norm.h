// nn::RMSNorm: x / sqrt(mean(x^2) + eps) over the trailing `normalized_shape` dims, times a
// weight that starts at one. No eps means the dtype's machine epsilon, as in torch.
#pragma once

#include <optional>
#include <vector>

#include "frontend/nn/module.h"

namespace kiln::nn {

class RMSNorm : public UnaryModule {
 public:
  explicit RMSNorm(std::vector<int64_t> normalized_shape, std::optional<double> eps = std::nullopt,
                   bool elementwise_affine = true);
  Tensor forward(const Tensor& x, CallSite loc = CallSite::current()) override;

  std::vector<int64_t> normalized_shape;
  std::optional<double> eps;
  Tensor weight;  // undefined without elementwise_affine
};

}  // namespace kiln::nn
