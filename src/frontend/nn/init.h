// Seeded parameter initialization, computed directly on concrete tensors (no ops are
// dispatched, so building a module inside capture() records nothing).
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace kiln::nn {

// Uniform in [-bound, bound) from `seed`. With bound = 1/sqrt(fan_in) this is torch's default
// for Linear and Conv2d (kaiming_uniform with a = sqrt(5)).
Tensor uniform_init(const std::vector<int64_t>& sizes, double bound, uint64_t seed);

// 1/sqrt(fan_in), or 0 for an empty fan-in.
double fan_in_bound(int64_t fan_in);

}  // namespace kiln::nn
