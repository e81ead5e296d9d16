// nn::Dropout: zeroes elements with probability p in training mode and scales the rest by
// 1/(1-p); the identity in eval mode. The op is recorded in both modes (as torch's pattern
// capture keeps dropout, so train and eval can be swapped later). Masks are reproducible: the
// call draws from `seed`, which advances by one after every training-mode call, so successive
// calls use different masks and a captured graph keeps the seed it was traced with.
#pragma once

#include "frontend/nn/module.h"

namespace kiln::nn {

class Dropout : public UnaryModule {
 public:
  // Throws kiln::Error for p outside [0, 1].
  explicit Dropout(double p = 0.5, uint64_t seed = kDefaultSeed);
  Tensor forward(const Tensor& x, CallSite loc = CallSite::current()) override;

  double p;
  uint64_t seed;
};

}  // namespace kiln::nn
