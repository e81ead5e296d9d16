// joint_graph_passes: a straight list of steps, each enabled by its option.
#include "patterns/joint_graph_passes.h"

#include "passes/canonicalize.h"
#include "passes/dce.h"
#include "passes/fold_constants.h"
#include "passes/mark_unique_indices.h"
#include "passes/remove_noop_ops.h"
#include "patterns/pattern_sets.h"

namespace kiln {

namespace {

using StepFn = Expected<PassResult> (*)(Graph&, const JointGraphPassOptions&);

struct Step {
  const char* name;
  bool JointGraphPassOptions::*enabled;
  StepFn run;  // null: the registry's pattern set of this name
};

// The registry's sets, traced once per process (the reference's lazy_init); immutable after.
const Expected<std::vector<std::shared_ptr<const PatternSet>>>& registry_sets() {
  static const Expected<std::vector<std::shared_ptr<const PatternSet>>> sets = builtin_pattern_sets();
  return sets;
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
    {"fuse-attention", &JointGraphPassOptions::fuse_attention, nullptr},
    // pad-mm after fuse-attention, which turns attention's matmuls into one op.
    {"pad-mm", &JointGraphPassOptions::pad_mm, run_pad_mm},
    {"unique-index", &JointGraphPassOptions::unique_index,
     [](Graph& g, const JointGraphPassOptions&) -> Expected<PassResult> { return mark_unique_indices(g); }},
    {"dce", &JointGraphPassOptions::dce,
     [](Graph& g, const JointGraphPassOptions&) -> Expected<PassResult> { return eliminate_dead_code(g); }},
};

Expected<PassResult> run_registry_set(Graph& g, const std::string& name, bool& missing) {
  const auto& sets = registry_sets();
  if (!sets) return sets.error();
  for (const auto& set : *sets)
    if (set->name() == name) return apply_patterns(g, *set);
  missing = true;
  return PassResult{};
}

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
    bool missing = false;
    Expected<PassResult> r = step.run ? step.run(g, options) : run_registry_set(g, step.name, missing);
    if (!r) return make_error("joint-graph: ", step.name, ": ", r.error().to_string());
    if (missing) total.counters[std::string(step.name) + ".missing"] = 1;
    total.changed |= r->changed;
    for (const auto& [counter, value] : r->counters) total.counters[std::string(step.name) + "." + counter] = value;
  }
  return total;
}

NamedPass joint_graph_named_pass() {
  return {"joint-graph", [](Graph& g) { return joint_graph_passes(g); }};
}

}  // namespace kiln
