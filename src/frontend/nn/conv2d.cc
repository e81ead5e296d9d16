#include "frontend/nn/conv2d.h"

#include "frontend/functional.h"
#include "frontend/nn/arguments.h"
#include "frontend/nn/init.h"

namespace kiln::nn {

Conv2d::Conv2d(int64_t in_channels, int64_t out_channels, std::vector<int64_t> kernel_size, Conv2dOptions options)
    : options(std::move(options)) {
  check_size_arg("Conv2d", "in_channels", in_channels);
  check_size_arg("Conv2d", "out_channels", out_channels);
  const int64_t groups = this->options.groups;
  check_positive_arg("Conv2d", "groups", groups);
  if (in_channels % groups != 0 || out_channels % groups != 0)
    throw Error(make_error("Conv2d: groups ", groups, " must divide in_channels ", in_channels, " and out_channels ",
                           out_channels));
  if (kernel_size.empty() || kernel_size.size() > 2)
    throw Error(make_error("Conv2d: kernel_size must have 1 or 2 entries, got ", kernel_size.size()));
  const int64_t kh = kernel_size[0];
  const int64_t kw = kernel_size.size() > 1 ? kernel_size[1] : kh;
  check_positive_arg("Conv2d", "kernel_size", kh);
  check_positive_arg("Conv2d", "kernel_size", kw);
  const double bound = fan_in_bound(in_channels / groups * kh * kw);
  weight = register_parameter("weight",
                              uniform_init({out_channels, in_channels / groups, kh, kw}, bound, this->options.seed));
  if (this->options.bias)
    bias = register_parameter("bias", uniform_init({out_channels}, bound, this->options.seed + 1));
}

Tensor Conv2d::forward(const Tensor& x, CallSite loc) {
  return conv2d(x, weight, bias, options.stride, options.padding, options.dilation, options.groups, loc);
}

}  // namespace kiln::nn
