// Bugs the fuzzer found in code other engineers own while they fix them (issue 18), each with
// where it is and what the fuzzer saw. A drawn node that would hit one is drawn again, so
// that the fuzzer's CI run stays green meanwhile; the entry goes when the fix lands. Keep
// each entry narrow: it hides only its bug.
#pragma once

#include <span>
#include <string_view>

#include "fuzz/graph_generator.h"
#include "ir/graph.h"

namespace kiln::fuzz {

struct KnownBug {
  std::string_view where;  // the file at fault
  std::string_view what;   // what goes wrong, and the seed that showed it
  bool (*hits)(const Node& n, const GeneratorOptions& options);
};

std::span<const KnownBug> known_bugs();

// The first known bug `n` would hit, or null.
const KnownBug* hits_known_bug(const Node& n, const GeneratorOptions& options);

}  // namespace kiln::fuzz
