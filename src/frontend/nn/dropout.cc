#include "frontend/nn/dropout.h"

#include "frontend/functional.h"

namespace kiln::nn {

Tensor Dropout::forward(const Tensor& x) {
  if (!is_training()) return dropout(x, p, false, static_cast<int64_t>(seed));
  return dropout(x, p, true, static_cast<int64_t>(seed++));
}

}  // namespace kiln::nn
