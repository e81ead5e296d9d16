#include "frontend/nn/module.h"

namespace kiln::nn {

Tensor Module::register_parameter(std::string name, Tensor value) {
  parameters_.emplace_back(std::move(name), value);
  return value;
}

Tensor Module::register_buffer(std::string name, Tensor value) {
  buffers_.emplace_back(std::move(name), value);
  return value;
}

Module& Module::register_module(std::string name, Module& child) {
  child.train(training_);
  children_.emplace_back(std::move(name), &child);
  return child;
}

void Module::collect(const std::string& prefix, bool parameters, Named& out) const {
  for (const auto& [name, t] : parameters ? parameters_ : buffers_) out.emplace_back(prefix + name, t);
  for (const auto& [name, child] : children_) child->collect(prefix + name + ".", parameters, out);
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters() const {
  Named out;
  collect("", true, out);
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers() const {
  Named out;
  collect("", false, out);
  return out;
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (auto& [name, t] : named_parameters()) out.push_back(t);
  return out;
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [name, child] : children_) child->train(on);
}

}  // namespace kiln::nn
