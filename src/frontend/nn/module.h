// nn::Module: a model's state (parameters, buffers, child modules) with dotted names, like
// torch.nn.Module. capture() lifts parameters to graph inputs with role `param` and buffers
// with role `buffer`, named by path (`fc1.weight`, `bn.running_mean`).
//
// Children are registered by reference (usually members, which must outlive the parent) or
// by shared_ptr (owned). Modules are neither copyable nor movable, since parents hold
// pointers to children.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace kiln::nn {

// Default seed of parameter initialization. Modules draw their initial values from a seed
// given to their constructor (or this one), so the same program always builds the same model;
// two layers of the same shape built with the same seed start out equal.
inline constexpr uint64_t kDefaultSeed = 0;

class Module {
 public:
  Module() = default;
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // Registers state under `name` and returns it (a handle sharing its storage).
  Tensor register_parameter(std::string name, Tensor value);
  Tensor register_buffer(std::string name, Tensor value);
  Module& register_module(std::string name, Module& child);
  template <typename M>
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> child) {
    register_module(std::move(name), *child);
    owned_.push_back(child);
    return child;
  }

  // Own entries first, then each child's, in registration order, with dotted paths.
  std::vector<std::pair<std::string, Tensor>> named_parameters() const;
  std::vector<std::pair<std::string, Tensor>> named_buffers() const;
  std::vector<Tensor> parameters() const;
  const std::vector<std::pair<std::string, Module*>>& children() const { return children_; }

  // Sets training mode here and in every descendant.
  void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }

 private:
  using Named = std::vector<std::pair<std::string, Tensor>>;
  void collect(const std::string& prefix, bool parameters, Named& out) const;

  Named parameters_;
  Named buffers_;
  std::vector<std::pair<std::string, Module*>> children_;
  std::vector<std::shared_ptr<Module>> owned_;
  bool training_ = true;
};

// A module that maps one tensor to one tensor; Sequential chains these. `loc` is the caller's
// line, which forward passes to the ops it calls, so their nodes name the line that called the
// module (functional.h). Overrides repeat the default, so it is the same whatever the static type.
class UnaryModule : public Module {
 public:
  virtual Tensor forward(const Tensor& x, CallSite loc = CallSite::current()) = 0;
  Tensor operator()(const Tensor& x, CallSite loc = CallSite::current()) { return forward(x, loc); }
};

}  // namespace kiln::nn
