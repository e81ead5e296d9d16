#include "fuzz/known_bugs.h"

#include <array>

namespace kiln::fuzz {
namespace {

// None open now: an entry names its file, what goes wrong with the seed that showed it, and a
// narrow predicate over the drawn node (see docs/FUZZING.md for the ones fixed).
constexpr std::array<KnownBug, 0> kKnownBugs{};

}  // namespace

std::span<const KnownBug> known_bugs() { return kKnownBugs; }

const KnownBug* hits_known_bug(const Node& n, const GeneratorOptions& options) {
  for (const KnownBug& b : kKnownBugs)
    if (b.hits(n, options)) return &b;
  return nullptr;
}

}  // namespace kiln::fuzz
