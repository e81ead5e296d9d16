// nn::LayerNorm: normalizes over the trailing `normalized_shape` dims; weight starts at one
// and bias at zero (when elementwise_affine).
#pragma once

#include <vector>

#include "frontend/nn/module.h"

namespace kiln::nn {

class LayerNorm : public UnaryModule {
 public:
  explicit LayerNorm(std::vector<int64_t> normalized_shape, double eps = 1e-05, bool elementwise_affine = true);
  Tensor forward(const Tensor& x, CallSite loc = CallSite::current()) override;

  std::vector<int64_t> normalized_shape;
  double eps;
  Tensor weight;  // undefined without elementwise_affine
  Tensor bias;
};

}  // namespace kiln::nn
