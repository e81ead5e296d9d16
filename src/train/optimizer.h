// optim::Optimizer: updates a module's parameters in place from named gradients, the way
// torch.optim's single-tensor ("for-loop") implementations do, keeping per-parameter state
// across steps. Parameters are given as `module.named_parameters()`: handles sharing the
// module's storage, so the module (and a TrainStep reading it) sees each update. Gradients
// come as StepResult::grads: a parameter without a gradient is skipped, as torch skips a
// parameter whose .grad is None. The arithmetic runs per element in float64 and each result
// is stored in the parameter's dtype, as torch stores parameters and state.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace kiln::optim {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

class Optimizer {
 public:
  // Throws kiln::Error for a parameter that is not a concrete floating tensor, or a name
  // given twice.
  explicit Optimizer(NamedTensors params);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One update of every parameter that has a gradient in `grads`. Throws kiln::Error for a
  // gradient that names no parameter or is given twice, or whose dtype or sizes differ from
  // its parameter's.
  void step(const NamedTensors& grads);

  const NamedTensors& params() const { return params_; }

 protected:
  // Updates parameter `index` (its values and the optimizer's state for it) from `grad`.
  virtual void update(size_t index, const Tensor& param, const Tensor& grad) = 0;

 private:
  NamedTensors params_;
};

// The elements of `t` in row-major order, as doubles.
std::vector<double> to_doubles(const Tensor& t);
// Stores `values` (row-major) into `t`, in place, converted to t's dtype.
void assign_doubles(const Tensor& t, const std::vector<double>& values);

}  // namespace kiln::optim
