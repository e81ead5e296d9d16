#include "core/random.h"

#include <cmath>

#include "core/random_constants.h"

namespace kiln {

namespace {

// SplitMix64's finalizer: a bijection of 64-bit words that mixes every bit into every bit.
uint64_t mix64(uint64_t x) {
  x += kMix64Increment;
  x = (x ^ (x >> 30)) * kMix64Multiplier0;
  x = (x ^ (x >> 27)) * kMix64Multiplier1;
  return x ^ (x >> 31);
}

}  // namespace

RandomStream stream_from_state(uint64_t state_seed, uint64_t state_offset, uint64_t node_seed) {
  return {mix64(mix64(state_seed) ^ node_seed), state_offset};
}

PhiloxBlock philox4x32(RandomStream stream, uint64_t counter) {
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32);
  uint32_t c2 = static_cast<uint32_t>(stream.offset), c3 = static_cast<uint32_t>(stream.offset >> 32);
  uint32_t k0 = static_cast<uint32_t>(stream.key), k1 = static_cast<uint32_t>(stream.key >> 32);
  for (int round = 0; round < kPhiloxRounds; ++round) {
    uint64_t p0 = static_cast<uint64_t>(kPhiloxMultiplier0) * c0;
    uint64_t p1 = static_cast<uint64_t>(kPhiloxMultiplier1) * c2;
    uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
    c0 = n0;
    c1 = n1;
    c2 = n2;
    c3 = n3;
    k0 += kPhiloxWeyl0;
    k1 += kPhiloxWeyl1;
  }
  return {{c0, c1, c2, c3}};
}

uint64_t random_u64(RandomStream stream, uint64_t index) {
  PhiloxBlock b = philox4x32(stream, index);
  return (static_cast<uint64_t>(b.w[0]) << 32) | b.w[1];
}

double uniform_double(RandomStream stream, uint64_t index, int bits) {
  return std::ldexp(static_cast<double>(random_u64(stream, index) >> (64 - bits)), -bits);
}

int uniform_bits(DType t) {
  switch (t) {
    case DType::F16: return 11;
    case DType::BF16: return 8;
    case DType::F32: return 24;
    default: return 53;
  }
}

double normal_double(RandomStream stream, uint64_t index) {
  PhiloxBlock b = philox4x32(stream, index);
  uint64_t a = (static_cast<uint64_t>(b.w[0]) << 32) | b.w[1];
  uint64_t c = (static_cast<uint64_t>(b.w[2]) << 32) | b.w[3];
  double u1 = (static_cast<double>(a >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]: log is finite
  double u2 = static_cast<double>(c >> 11) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

}  // namespace kiln
