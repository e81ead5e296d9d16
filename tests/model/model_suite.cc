#include "model_suite.h"

#include "frontend/functional.h"

namespace kiln::test_models {

Mlp::Mlp() : fc1(16, 32, true, 1), fc2(32, 4, true, 2) {
  register_module("fc1", fc1);
  register_module("fc2", fc2);
}

Tensor Mlp::forward(const Tensor& x) { return fc2.forward(gelu(fc1.forward(x), "tanh")); }

SmallCnn::SmallCnn() : conv(3, 8, 3, {.padding = {1, 1}}), bn(8), head(8 * 4 * 4, 10, true, 7) {
  register_module("conv", conv);
  register_module("bn", bn);
  register_module("head", head);
}

Tensor SmallCnn::forward(const Tensor& x) {
  Tensor h = max_pool2d(relu(bn.forward(conv.forward(x))), {2, 2});
  return head.forward(flatten(h, 1));
}

}  // namespace kiln::test_models
