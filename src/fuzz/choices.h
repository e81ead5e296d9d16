// Where the random-graph generator's decisions come from: a 64-bit seed (one seed, one graph)
// or the bytes of a libFuzzer input (so that coverage guides the choices). The generator only
// asks for numbers below a bound; the two sources differ in nothing else.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "support/check.h"

namespace kiln::fuzz {

class Choices {
 public:
  virtual ~Choices() = default;

  // A number in [0, n); n >= 1.
  virtual uint64_t below(uint64_t n) = 0;

  // A number in [lo, hi] (inclusive); lo <= hi.
  int64_t between(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo) + 1));
  }
  // True with probability percent / 100.
  bool percent(int percent) { return below(100) < static_cast<uint64_t>(percent); }
  template <typename T>
  const T& pick(const std::vector<T>& items) {
    KILN_CHECK(!items.empty()) << "pick from an empty list";
    return items[below(items.size())];
  }
  template <typename T, size_t N>
  const T& pick(const T (&items)[N]) {
    return items[below(N)];
  }
};

// Choices drawn from Philox under the seed (core/random.h): the same seed, the same choices.
class SeededChoices final : public Choices {
 public:
  explicit SeededChoices(uint64_t seed) : seed_(seed) {}
  uint64_t below(uint64_t n) override;

 private:
  uint64_t seed_;
  uint64_t counter_ = 0;
};

// Choices read from bytes, eight bits at a time per byte needed by the bound; once the bytes
// run out every choice is 0 (the first option), so every input gives a finite graph.
class ByteChoices final : public Choices {
 public:
  explicit ByteChoices(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  uint64_t below(uint64_t n) override;

 private:
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

}  // namespace kiln::fuzz
