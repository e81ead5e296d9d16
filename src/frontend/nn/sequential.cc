#include "frontend/nn/sequential.h"

#include <string>

namespace kiln::nn {

Sequential::Sequential(std::initializer_list<std::shared_ptr<UnaryModule>> modules) {
  for (const auto& m : modules) push_back(m);
}

void Sequential::push_back(std::shared_ptr<UnaryModule> module) {
  modules_.push_back(register_module(std::to_string(modules_.size()), std::move(module)));
}

Tensor Sequential::forward(const Tensor& x, CallSite loc) {
  Tensor y = x;
  for (const auto& m : modules_) y = m->forward(y, loc);
  return y;
}

}  // namespace kiln::nn
