// optim::SGD: torch.optim.SGD (maximize=False), single-tensor implementation:
//   g = grad + weight_decay * param
//   buf = g on the first step, else momentum * buf + (1 - dampening) * g   (momentum != 0)
//   g = g + momentum * buf (nesterov), else buf                            (momentum != 0)
//   param = param - lr * g
#pragma once

#include <vector>

#include "train/optimizer.h"

namespace kiln::optim {

struct SgdOptions {
  double lr = 1e-3;
  double momentum = 0.0;
  double dampening = 0.0;
  double weight_decay = 0.0;
  bool nesterov = false;
};

class SGD final : public Optimizer {
 public:
  // Throws kiln::Error, as torch raises ValueError, for a negative lr, momentum or
  // weight_decay, and for nesterov without momentum or with dampening.
  SGD(NamedTensors params, SgdOptions options);

  const SgdOptions& options() const { return options_; }

 private:
  void update(size_t index, const Tensor& param, const Tensor& grad) override;

  SgdOptions options_;
  // Per parameter, in its dtype; undefined until its first update with momentum.
  std::vector<Tensor> momentum_buffers_;
};

}  // namespace kiln::optim
