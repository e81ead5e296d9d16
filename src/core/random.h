// Counter-based random numbers (Philox-4x32-10): element i of a tensor drawn with seed s
// depends only on (s, i), so any backend that evaluates elements in any order, or
// recomputes them, produces the same numbers as the reference interpreter.
#pragma once

#include <cstdint>

namespace kiln {

// Four 32-bit random words for counter `counter` under key `seed`.
struct PhiloxBlock {
  uint32_t w[4];
};
PhiloxBlock philox4x32(uint64_t seed, uint64_t counter);

// Uniform in [0, 1) with `bits` random bits (53 for f64, 24 for f32, 11 for f16, 8 for bf16),
// so the value is exactly representable in the target dtype and never rounds up to 1.
double uniform_double(uint64_t seed, uint64_t index, int bits = 53);
// Standard normal for element `index` (Box-Muller over the block's words).
double normal_double(uint64_t seed, uint64_t index);
// Uniform 64-bit integer for element `index`.
uint64_t random_u64(uint64_t seed, uint64_t index);

}  // namespace kiln
