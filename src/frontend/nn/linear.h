// nn::Linear: y = x W^T + b, recorded as one `linear` op. Weight [out, in] and bias [out]
// start uniform in +-1/sqrt(in) (torch's default), drawn from `seed` and `seed + 1`.
#pragma once

#include "frontend/nn/module.h"

namespace kiln::nn {

class Linear : public UnaryModule {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true, uint64_t seed = kDefaultSeed);
  Tensor forward(const Tensor& x, CallSite loc = CallSite::current()) override;

  Tensor weight;
  Tensor bias;  // undefined without bias
};

}  // namespace kiln::nn
