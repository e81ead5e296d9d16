// optim::AdamW: torch.optim.adam._single_tensor_adam with decoupled weight decay, element by
// element; state is rounded to the parameter's dtype after every step, as torch keeps it.
#include "train/adamw.h"

#include <algorithm>
#include <cmath>

#include "support/error.h"

namespace kiln::optim {

AdamW::AdamW(NamedTensors params, AdamWOptions options) : Optimizer(std::move(params)), options_(options) {
  const auto [beta1, beta2] = options_.betas;
  if (options_.lr < 0) throw Error(make_error("AdamW: invalid learning rate ", options_.lr));
  if (options_.eps < 0) throw Error(make_error("AdamW: invalid epsilon ", options_.eps));
  if (!(beta1 >= 0 && beta1 < 1)) throw Error(make_error("AdamW: invalid beta parameter at index 0: ", beta1));
  if (!(beta2 >= 0 && beta2 < 1)) throw Error(make_error("AdamW: invalid beta parameter at index 1: ", beta2));
  if (options_.weight_decay < 0) throw Error(make_error("AdamW: invalid weight_decay ", options_.weight_decay));
  state_.resize(this->params().size());
}

void AdamW::update(size_t index, const Tensor& param, const Tensor& grad) {
  const AdamWOptions& o = options_;
  const auto [beta1, beta2] = o.betas;
  State& s = state_[index];
  if (s.step == 0) {
    s.exp_avg = Tensor::zeros(param.sizes(), param.dtype());
    s.exp_avg_sq = Tensor::zeros(param.sizes(), param.dtype());
    if (o.amsgrad) s.max_exp_avg_sq = Tensor::zeros(param.sizes(), param.dtype());
  }
  ++s.step;
  const double t = static_cast<double>(s.step);

  std::vector<double> p = to_doubles(param);
  const std::vector<double> g = to_doubles(grad);
  std::vector<double> m = to_doubles(s.exp_avg);
  std::vector<double> v = to_doubles(s.exp_avg_sq);
  for (size_t i = 0; i < p.size(); ++i) {
    p[i] *= 1 - o.lr * o.weight_decay;
    m[i] += (1 - beta1) * (g[i] - m[i]);
    v[i] = v[i] * beta2 + (1 - beta2) * g[i] * g[i];
  }
  assign_doubles(s.exp_avg, m);
  assign_doubles(s.exp_avg_sq, v);
  m = to_doubles(s.exp_avg);
  v = to_doubles(s.exp_avg_sq);
  if (o.amsgrad) {
    std::vector<double> vmax = to_doubles(s.max_exp_avg_sq);
    for (size_t i = 0; i < v.size(); ++i) vmax[i] = std::max(vmax[i], v[i]);
    assign_doubles(s.max_exp_avg_sq, vmax);
    v = to_doubles(s.max_exp_avg_sq);
  }
  const double step_size = o.lr / (1 - std::pow(beta1, t));
  const double bias_correction2_sqrt = std::sqrt(1 - std::pow(beta2, t));
  for (size_t i = 0; i < p.size(); ++i) p[i] -= step_size * m[i] / (std::sqrt(v[i]) / bias_correction2_sqrt + o.eps);
  assign_doubles(param, p);
}

}  // namespace kiln::optim
