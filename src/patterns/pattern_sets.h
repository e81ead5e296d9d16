// The named pattern sets `kiln opt --passes=` can run, each built from traced replacements.
//   demo-fusions: sigmoid(x) * x -> silu(x); mm(a, b) + c -> addmm(c, a, b)
//     (tests/unit/test_traced_patterns.cc)
//   fuse-attention: hand-written attention -> scaled_dot_product_attention
//     (patterns/attention_fusion.h, tests/unit/test_attention_fusion.cc)
//   pad-mm: misaligned matrix products padded and sliced back (patterns/pad_mm.h)
// Each rewrite computes the same numbers as the ops it replaces.
// joint_graph_passes (patterns/joint_graph_passes.h) runs the joint-graph sets by name.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "passes/pass_manager.h"
#include "passes/pattern.h"
#include "patterns/traced_pattern.h"

namespace kiln {

// The replacements of demo-fusions, in registration order.
std::vector<Replacement> demo_fusion_replacements();

// A set built from `replacements`; with `serialized` (parse_patterns of print_patterns'
// text) the search graphs come from there instead of tracing.
Expected<std::shared_ptr<const PatternSet>> make_pattern_set(const std::string& name,
                                                             const std::vector<Replacement>& replacements,
                                                             const std::vector<Pattern>* serialized = nullptr);

// The names of the builtin sets, in order.
std::vector<std::string> builtin_pattern_set_names();
// The builtin set of that name, built fresh (an error for another name).
Expected<std::shared_ptr<const PatternSet>> builtin_pattern_set(const std::string& name);
// Every named set, built fresh.
Expected<std::vector<std::shared_ptr<const PatternSet>>> builtin_pattern_sets();

// One pass per builtin set that builds its set the first time it runs, so a pass list that
// does not name fuse-attention does not trace its 336 patterns (`kiln opt`).
std::vector<NamedPass> lazy_builtin_pattern_set_passes();

}  // namespace kiln
