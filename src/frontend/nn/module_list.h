// nn::ModuleList: an indexable list of child modules named "0", "1", ...; the owner decides
// how they are called.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "frontend/nn/module.h"

namespace kiln::nn {

class ModuleList : public Module {
 public:
  ModuleList() = default;

  template <typename M>
  std::shared_ptr<M> push_back(std::shared_ptr<M> module) {
    modules_.push_back(module);
    return register_module(std::to_string(modules_.size() - 1), std::move(module));
  }
  size_t size() const { return modules_.size(); }
  Module& operator[](size_t i) const { return *modules_[i]; }
  // The i-th module as an M; null if it is not one.
  template <typename M>
  M* at(size_t i) const {
    return dynamic_cast<M*>(modules_[i].get());
  }

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};

}  // namespace kiln::nn
