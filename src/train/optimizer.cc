// The checks every optimizer shares, and element access for the update formulas.
#include "train/optimizer.h"

#include "support/error.h"

namespace kiln::optim {

Optimizer::Optimizer(NamedTensors params) : params_(std::move(params)) {
  for (size_t i = 0; i < params_.size(); ++i) {
    const auto& [name, t] = params_[i];
    if (!t.defined() || t.is_traced() || !is_floating(t.dtype()))
      throw Error(make_error("optimizer: parameter '", name, "' must be a concrete floating tensor"));
    for (size_t j = 0; j < i; ++j)
      if (params_[j].first == name) throw Error(make_error("optimizer: parameter '", name, "' is given twice"));
  }
}

void Optimizer::step(const NamedTensors& grads) {
  for (size_t g = 0; g < grads.size(); ++g) {
    const auto& [name, grad] = grads[g];
    for (size_t h = 0; h < g; ++h)
      if (grads[h].first == name) throw Error(make_error("optimizer: gradient '", name, "' is given twice"));
    size_t index = 0;
    while (index < params_.size() && params_[index].first != name) ++index;
    if (index == params_.size())
      throw Error(make_error("optimizer: gradient '", name, "' names no parameter of this optimizer"));
    const Tensor& param = params_[index].second;
    if (!grad.defined() || grad.is_traced() || grad.dtype() != param.dtype() || grad.sizes() != param.sizes())
      throw Error(
          make_error("optimizer: gradient '", name, "' is ",
                     grad.defined() && !grad.is_traced() ? grad.type().to_string() : std::string("not concrete"),
                     ", but the parameter is ", param.type().to_string()));
  }
  // Parameters in their own order, so the update order does not depend on the gradients'.
  for (size_t index = 0; index < params_.size(); ++index)
    for (const auto& [name, grad] : grads)
      if (name == params_[index].first) update(index, params_[index].second, grad);
}

std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) out[static_cast<size_t>(i)] = t.item_double(i);
  return out;
}

void assign_doubles(const Tensor& t, const std::vector<double>& values) {
  Tensor(t).copy_from(Tensor::from_doubles(values, t.sizes(), t.dtype()));
}

}  // namespace kiln::optim
