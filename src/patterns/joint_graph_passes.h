// joint_graph_passes (SPEC.md 5.3): the cleanups and pattern sets Inductor runs on the joint
// forward-backward graph before partitioning, in the reference's order:
//   remove-noop-ops, fold-constants (uniform values), [canonicalize, off by default],
//   fuse-attention, pad-mm (the pattern sets, taken from the registry by name),
//   unique-index, dce.
// Lives in `patterns` because it needs the pattern sets (patterns -> frontend, passes); train
// runs it inside GradFunction (GradOptions::joint_passes), between joint_graph and partition.
//
// The graph's inputs and outputs are kept (no pass adds, removes or reorders them), so a
// JointGraph's index bookkeeping stays valid. Every step computes the same values on the
// reference interpreter (tests/unit/test_joint_graph_passes.cc checks results and gradients).
#pragma once

#include <string>
#include <vector>

#include "passes/pass_manager.h"
#include "patterns/pad_mm.h"

namespace kiln {

// One bool per step, each on by default except canonicalize: the pattern sets' search graphs
// are traced uncanonicalized (`div(s, 8)`), so canonicalizing first (`mul(s, 0.125)`) would
// hide their matches.
struct JointGraphPassOptions {
  bool remove_noop_ops = true;
  bool fold_constants = true;
  bool canonicalize = false;
  bool fuse_attention = true;  // the set "fuse-attention", once the registry has it
  bool pad_mm = true;
  bool unique_index = true;
  bool dce = true;
  PadMmOptions pad_mm_options = {};
};

// The steps in order, by their `kiln opt --passes=` names.
std::vector<std::string> joint_graph_pass_names();

// Runs the enabled steps on `g` (subgraphs included, as each pass does). Counters are the
// steps' own, prefixed by the step name ("pad-mm.matches", "pad-mm.node_visits",
// "unique-index.marked"); a pattern set the registry does not have (yet) counts
// "<name>.missing" = 1 and is skipped. Fails where a step fails.
Expected<PassResult> joint_graph_passes(Graph& g, const JointGraphPassOptions& options = {});

// "joint-graph" for PassManagerOptions::extra_passes (`kiln opt --passes=joint-graph`).
NamedPass joint_graph_named_pass();

}  // namespace kiln
