// joint_graph_passes: a straight list of steps, each enabled by its option.
#include "patterns/joint_graph_passes.h"

#include "passes/canonicalize.h"
#include "passes/dce.h"
#include "passes/fold_constants.h"
#include "passes/mark_unique_indices.h"
#include "passes/remove_noop_ops.h"
#include "patterns/attention_fusion.h"
#include "patterns/lazy_pattern_set.h"
#include "patterns/pad_mm.h"

namespace kiln {

namespace {

using StepFn = Expected<PassResult> (*)(Graph&, const JointGraphPassOptions&);

struct Step {
  const char* name;
  bool JointGraphPassOptions::*enabled;
  StepFn run;
};

// fuse-attention's patterns, each traced the first time a graph could match it (the
// reference's lazy_init, per pattern); immutable apart from those caches.
const LazyPatternSet& attention_fusion_set() {
  static const LazyPatternSet set(kAttentionFusionSet, attention_fusion_replacements());
  return set;
}

Expected<PassResult> run_fuse_attention(Graph& g, const JointGraphPassOptions&) {
  return attention_fusion_set().apply(g);
}

Expected<PassResult> run_pad_mm(Graph& g, const JointGraphPassOptions& o) {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const PatternSet> set, make_pad_mm_set(o.pad_mm_options));
  return apply_patterns(g, *set);
}

constexpr Step kSteps[] = {
    {"remove-noop-ops", &JointGraphPassOptions::remove_noop_ops,
     [](Graph& g, const JointGraphPassOptions&) { return remove_noop_ops(g); }},
    {"fold-constants", &JointGraphPassOptions::fold_constants,
     [](Graph& g, const JointGraphPassOptions&) { return fold_constants(g); }},
    {"canonicalize", &JointGraphPassOptions::canonicalize,
     [](Graph& g, const JointGraphPassOptions&) { return canonicalize(g); }},
    {"fuse-attention", &JointGraphPassOptions::fuse_attention, run_fuse_attention},
    // pad-mm after fuse-attention, which turns attention's matmuls into one op.
    {"pad-mm", &JointGraphPassOptions::pad_mm, run_pad_mm},
    {"unique-index", &JointGraphPassOptions::unique_index,
     [](Graph& g, const JointGraphPassOptions&) -> Expected<PassResult> { return mark_unique_indices(g); }},
    {"dce", &JointGraphPassOptions::dce,
     [](Graph& g, const JointGraphPassOptions&) -> Expected<PassResult> { return eliminate_dead_code(g); }},
};

}  // namespace

std::vector<std::string> joint_graph_pass_names() {
  std::vector<std::string> names;
  for (const Step& s : kSteps) names.emplace_back(s.name);
  return names;
}

Expected<PassResult> joint_graph_passes(Graph& g, const JointGraphPassOptions& options) {
  PassResult total;
  for (const Step& step : kSteps) {
    if (!(options.*step.enabled)) continue;
    Expected<PassResult> r = step.run(g, options);
    if (!r) return make_error("joint-graph: ", step.name, ": ", r.error().to_string());
    total.changed |= r->changed;
    for (const auto& [counter, value] : r->counters) total.counters[std::string(step.name) + "." + counter] = value;
  }
  return total;
}

NamedPass joint_graph_named_pass() {
  return {"joint-graph", [](Graph& g) { return joint_graph_passes(g); }};
}

}  // namespace kiln
