// solve_min_cut (SPEC.md 5.2): the values to save so that the backward can recompute
// everything else it needs with cheap, fusible ops, found as a minimum cut of a flow
// network with two vertices per value (X_in -> X_out, capacity = the value's weight) and
// infinite edges along data dependencies; values the backward needs drain into the sink,
// and values that must not be recomputed are fed from the source.
#pragma once

#include <set>
#include <vector>

#include "autograd/partition.h"
#include "autograd/partition/joint_view.h"

namespace kiln::partitioning {

struct BanRules {
  bool used_far_apart = true;
  bool long_fusible_chains = true;
  bool materialized_backward = true;
  bool not_in_allowlist = true;
  bool reductions = true;
};

// The ban rules PartitionOptions asks for (aggressive_recomputation turns four of them off).
BanRules ban_rules(const PartitionOptions& options);

struct CutResult {
  std::vector<const Value*> saved;  // in graph order (inputs first)
  std::set<int> banned;             // items fed from the source
};

// `dont_ban`: items the memory-budget knapsack allows to be recomputed after all.
Expected<CutResult> solve_min_cut(const JointView& view, const PartitionOptions& options, const BanRules& bans,
                                  const std::set<int>& dont_ban = {});

}  // namespace kiln::partitioning
