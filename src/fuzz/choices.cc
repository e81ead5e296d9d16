#include "fuzz/choices.h"

#include "core/random.h"

namespace kiln::fuzz {

uint64_t SeededChoices::below(uint64_t n) {
  KILN_CHECK(n >= 1) << "below(0)";
  // The modulo bias is at most n / 2^64: irrelevant for the bounds a generator asks for.
  return random_u64(RandomStream{seed_, 0}, counter_++) % n;
}

uint64_t ByteChoices::below(uint64_t n) {
  KILN_CHECK(n >= 1) << "below(0)";
  uint64_t v = 0;
  for (uint64_t range = n - 1; range > 0; range >>= 8) v = (v << 8) | (pos_ < bytes_.size() ? bytes_[pos_++] : 0);
  return v % n;
}

}  // namespace kiln::fuzz
