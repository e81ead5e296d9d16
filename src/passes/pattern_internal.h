// Shared between the pattern matcher (pattern_match.cc) and its driver (pattern_apply.cc).
#pragma once

#include <string>
#include <unordered_set>

#include "passes/pattern.h"

namespace kiln::pattern_detail {

// Values that are outputs of the graph being matched: an interior node's result among them
// is a use outside the match.
using OutputSet = std::unordered_set<const Value*>;
OutputSet graph_output_set(const Graph& g);

// The structural match of `entry` at `anchor` (no extra_check). `depth`, when given, receives
// the most search nodes any attempt bound (how far a failed match got).
bool match_at(const PatternSet::Entry& entry, Node* anchor, const OutputSet& graph_outputs, Match& out,
              std::string* why, int64_t* visits, int* depth = nullptr);

// "%3" for a node printed as "%3 = ...", "%3, %4" for two results.
std::string node_name(const Node& n);

}  // namespace kiln::pattern_detail
