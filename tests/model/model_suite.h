// The small models of the model suite, shared by the tests that run it through a backend (ONNX
// export, the CPU backend's gradients): an MLP with a tanh-gelu, and a CNN with a convolution,
// batch norm, relu, max pooling and a linear head. Their parameters come from fixed seeds.
#pragma once

#include "core/tensor.h"
#include "frontend/nn/batch_norm2d.h"
#include "frontend/nn/conv2d.h"
#include "frontend/nn/linear.h"
#include "frontend/nn/module.h"

namespace kiln::test_models {

// [N, 16] -> [N, 4]: fc2(gelu_tanh(fc1(x))).
class Mlp : public nn::Module {
 public:
  Mlp();
  Tensor forward(const Tensor& x);
  nn::Linear fc1, fc2;
};

// [N, 3, 8, 8] -> [N, 10]: head(flatten(max_pool2d(relu(bn(conv(x))), 2))).
class SmallCnn : public nn::Module {
 public:
  SmallCnn();
  Tensor forward(const Tensor& x);
  nn::Conv2d conv;
  nn::BatchNorm2d bn;
  nn::Linear head;
};

}  // namespace kiln::test_models
