// Random inputs for a graph's inputs, for tests that run a graph before and after a rewrite:
// floating inputs from randn, bools 0 or 1, other integers uniform in [int_low, int_high).
// Input k draws with seed + k, so one seed gives one set of inputs.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"

namespace kiln {

inline std::vector<Tensor> random_inputs(const Graph& g, uint64_t seed, int64_t int_low = -5, int64_t int_high = 6) {
  std::vector<Tensor> out;
  for (Value* in : g.inputs()) {
    const TensorType& t = in->type();
    const std::vector<int64_t> sizes = t.shape.sizes();
    if (is_floating(t.dtype))
      out.push_back(Tensor::randn(sizes, seed++, t.dtype));
    else if (t.dtype == DType::Bool)
      out.push_back(Tensor::randint(0, 2, sizes, seed++, DType::I64).to(t.dtype));
    else
      out.push_back(Tensor::randint(int_low, int_high, sizes, seed++, DType::I64).to(t.dtype));
  }
  return out;
}

}  // namespace kiln
