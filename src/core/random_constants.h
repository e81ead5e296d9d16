// Philox-4x32-10's and SplitMix64's constants (core/random.h's generator), the one place each is
// written: core/random.cc computes with them and the CUDA emitter prints its device functions
// from them (codegen/cuda/cuda_prelude.cc), so every backend draws the interpreter's numbers.
// Apart from random.h so that the headers including it (tensor.h) do not change with them.
#pragma once

#include <cstdint>

namespace kiln {

inline constexpr uint32_t kPhiloxMultiplier0 = 0xD2511F53u, kPhiloxMultiplier1 = 0xCD9E8D57u;
inline constexpr uint32_t kPhiloxWeyl0 = 0x9E3779B9u, kPhiloxWeyl1 = 0xBB67AE85u;
inline constexpr int kPhiloxRounds = 10;
inline constexpr uint64_t kMix64Increment = 0x9E3779B97F4A7C15ull;
inline constexpr uint64_t kMix64Multiplier0 = 0xBF58476D1CE4E5B9ull, kMix64Multiplier1 = 0x94D049BB133111EBull;

}  // namespace kiln
