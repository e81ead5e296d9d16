#include "frontend/nn/dropout.h"

#include "frontend/functional.h"

namespace kiln::nn {

Tensor Dropout::forward(const Tensor& x, CallSite loc) {
  if (!is_training()) return dropout(x, p, false, static_cast<int64_t>(seed), loc);
  return dropout(x, p, true, static_cast<int64_t>(seed++), loc);
}

}  // namespace kiln::nn
