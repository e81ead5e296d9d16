#include "frontend/nn/conv2d.h"

#include "frontend/functional.h"
#include "frontend/nn/init.h"

namespace kiln::nn {

Conv2d::Conv2d(int64_t in_channels, int64_t out_channels, std::vector<int64_t> kernel_size, Conv2dOptions options)
    : options(std::move(options)) {
  const int64_t groups = this->options.groups > 0 ? this->options.groups : 1;
  const int64_t kh = kernel_size.size() > 0 ? kernel_size[0] : 1;
  const int64_t kw = kernel_size.size() > 1 ? kernel_size[1] : kh;
  const double bound = fan_in_bound(in_channels / groups * kh * kw);
  weight = register_parameter("weight", uniform_init({out_channels, in_channels / groups, kh, kw}, bound, this->options.seed));
  if (this->options.bias) bias = register_parameter("bias", uniform_init({out_channels}, bound, this->options.seed + 1));
}

Tensor Conv2d::forward(const Tensor& x, CallSite loc) {
  return conv2d(x, weight, bias, options.stride, options.padding, options.dilation, options.groups, loc);
}

}  // namespace kiln::nn
