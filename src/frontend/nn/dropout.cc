#include "frontend/nn/dropout.h"

#include "frontend/functional.h"

namespace kiln::nn {

Dropout::Dropout(double p, uint64_t seed) : p(p), seed(seed) {
  if (!(p >= 0.0 && p <= 1.0)) throw Error(make_error("Dropout: p must be in [0, 1], got ", p));
}

Tensor Dropout::forward(const Tensor& x, CallSite loc) {
  if (!is_training()) return dropout(x, p, false, static_cast<int64_t>(seed), loc);
  return dropout(x, p, true, static_cast<int64_t>(seed++), loc);
}

}  // namespace kiln::nn
