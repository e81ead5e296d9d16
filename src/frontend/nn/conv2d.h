// nn::Conv2d: 2-d convolution over [N, C, H, W]. Weight [out, in/groups, kh, kw] and bias
// [out] start uniform in +-1/sqrt(fan_in) (torch's default), drawn from `seed` and `seed + 1`.
#pragma once

#include <vector>

#include "frontend/nn/module.h"

namespace kiln::nn {

struct Conv2dOptions {
  std::vector<int64_t> stride = {1, 1};
  std::vector<int64_t> padding = {0, 0};
  std::vector<int64_t> dilation = {1, 1};
  int64_t groups = 1;
  bool bias = true;
  uint64_t seed = kDefaultSeed;
};

class Conv2d : public UnaryModule {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, std::vector<int64_t> kernel_size, Conv2dOptions options = {});
  Conv2d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, Conv2dOptions options = {})
      : Conv2d(in_channels, out_channels, std::vector<int64_t>{kernel_size, kernel_size}, std::move(options)) {}
  Tensor forward(const Tensor& x, CallSite loc = CallSite::current()) override;

  Conv2dOptions options;
  Tensor weight;
  Tensor bias;  // undefined without bias
};

}  // namespace kiln::nn
