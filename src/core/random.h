// Counter-based random numbers (Philox-4x32-10): element i of a tensor drawn from a stream
// depends only on (stream, i), so any backend that evaluates elements in any order, or
// recomputes them, produces the same numbers as the reference interpreter.
#pragma once

#include <cstdint>

#include "core/dtype.h"

namespace kiln {

// Four 32-bit random words.
struct PhiloxBlock {
  uint32_t w[4];
};

// A stream of draws: the Philox key, and the high 64 bits of the 128-bit counter (the element
// index is the low 64 bits). A plain seed s is the stream {s, 0}; a runtime generator state
// steps `offset` to get a fresh stream under the same key (stream_from_state).
struct RandomStream {
  uint64_t key = 0;
  uint64_t offset = 0;
};

// The stream of a random op whose `seed` attribute is `node_seed`, under the runtime state
// (state_seed, state_offset) of its rng_state operand (ops.def): the key mixes the two seeds
// (a bijection in each, so nodes with different seeds sharing one state draw different
// streams) and the counter's high half is the state's offset.
RandomStream stream_from_state(uint64_t state_seed, uint64_t state_offset, uint64_t node_seed);

// The block for counter (offset, counter) under the stream's key.
PhiloxBlock philox4x32(RandomStream stream, uint64_t counter);

// Uniform in [0, 1) with `bits` random bits (53 for f64, 24 for f32, 11 for f16, 8 for bf16),
// so the value is exactly representable in the target dtype and never rounds up to 1.
double uniform_double(RandomStream stream, uint64_t index, int bits = 53);
// The random bits of a uniform draw of floating dtype `t` (above; 53 for every other dtype).
int uniform_bits(DType t);
// Standard normal for element `index` (Box-Muller over the block's words).
double normal_double(RandomStream stream, uint64_t index);
// Uniform 64-bit integer for element `index`.
uint64_t random_u64(RandomStream stream, uint64_t index);

}  // namespace kiln
