// The text form of a pattern set, so patterns can be traced once and loaded back (the
// reference precompiles its patterns the same way). Each pattern is a header line and two
// graphs in IR text, the search graph and the replacement graph:
//
//   pattern silu wildcards=x ignore_literals=true scalars=
//   graph @search(%x: f32[2,3]) -> (f32[2,3]) { ... }
//   graph @replacement(%x: f32[2,3]) -> (f32[2,3]) { ... }
//
// `wildcards` repeats the search graph's input names (checked on load); `scalars` lists the
// scalar parameters as name:magic; `scalar_nodes=N`, when present, says only the first N
// search nodes bind them (Pattern::scalar_nodes; joint patterns). Lines starting with `//` before the first pattern are
// comments. Extra checks and replacement callbacks are C++ and have no text form.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "passes/pattern.h"

namespace kiln {

// The patterns of `set` in text form. A pattern with a replacement callback is an error.
Expected<std::string> print_patterns(const PatternSet& set);

// Patterns read back, with their replacement graphs and no extra_check. Errors name the
// file and line.
Expected<std::vector<Pattern>> parse_patterns(std::string_view text, std::string_view filename = "<patterns>");

}  // namespace kiln
