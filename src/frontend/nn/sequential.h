// nn::Sequential: unary modules applied in order; children are named "0", "1", ...
#pragma once

#include <initializer_list>
#include <memory>
#include <vector>

#include "frontend/nn/module.h"

namespace kiln::nn {

class Sequential : public UnaryModule {
 public:
  Sequential() = default;
  Sequential(std::initializer_list<std::shared_ptr<UnaryModule>> modules);

  void push_back(std::shared_ptr<UnaryModule> module);
  size_t size() const { return modules_.size(); }
  UnaryModule& operator[](size_t i) const { return *modules_[i]; }
  Tensor forward(const Tensor& x, CallSite loc = CallSite::current()) override;

 private:
  std::vector<std::shared_ptr<UnaryModule>> modules_;
};

}  // namespace kiln::nn
