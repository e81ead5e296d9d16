// optim::AdamW: torch.optim.AdamW (maximize=False, not capturable), single-tensor
// implementation. Per parameter, with step t counted from 1:
//   param = param * (1 - lr * weight_decay)
//   exp_avg = lerp(exp_avg, grad, 1 - beta1)
//   exp_avg_sq = exp_avg_sq * beta2 + (1 - beta2) * grad * grad
//   max_exp_avg_sq = max(max_exp_avg_sq, exp_avg_sq)                       (amsgrad)
//   denom = sqrt(exp_avg_sq or max_exp_avg_sq) / sqrt(1 - beta2^t) + eps
//   param = param - lr / (1 - beta1^t) * exp_avg / denom
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "train/optimizer.h"

namespace kiln::optim {

struct AdamWOptions {
  double lr = 1e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 1e-2;
  bool amsgrad = false;
};

class AdamW final : public Optimizer {
 public:
  // Throws kiln::Error, as torch raises ValueError, for a negative lr, eps or weight_decay,
  // or a beta outside [0, 1).
  AdamW(NamedTensors params, AdamWOptions options = {});

  const AdamWOptions& options() const { return options_; }
  // How many updates parameter `index` has had.
  int64_t step_count(size_t index) const { return state_[index].step; }

 private:
  void update(size_t index, const Tensor& param, const Tensor& grad) override;

  struct State {
    int64_t step = 0;
    Tensor exp_avg;  // in the parameter's dtype, created on its first update
    Tensor exp_avg_sq;
    Tensor max_exp_avg_sq;  // amsgrad only
  };
  AdamWOptions options_;
  std::vector<State> state_;
};

}  // namespace kiln::optim
