// nn::BatchNorm2d over [N, C, H, W]: weight one, bias zero, running_mean zero, running_var
// one. In training mode it normalizes with the batch statistics (batch_norm with
// training=true) and then updates the running buffers through ops and copy_:
//   running = (1 - momentum) * running + momentum * batch_stat   (variance unbiased)
// so capture records the write-back (pattern capture drops it again, SPEC 3c step 4).
// In eval mode it normalizes with the running buffers.
#pragma once

#include "frontend/nn/module.h"

namespace kiln::nn {

class BatchNorm2d : public UnaryModule {
 public:
  explicit BatchNorm2d(int64_t num_features, double eps = 1e-05, double momentum = 0.1);
  Tensor forward(const Tensor& x, CallSite loc = CallSite::current()) override;

  double eps;
  double momentum;
  Tensor weight;
  Tensor bias;
  Tensor running_mean;
  Tensor running_var;
};

}  // namespace kiln::nn
