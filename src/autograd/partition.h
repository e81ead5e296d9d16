// Splitting a joint graph (joint_graph.h) into a forward graph and a backward graph
// (SPEC.md 5.2).
//   forward:  primals -> (forward outputs..., saved...)
//   backward: (saved..., tangents...) -> (gradients...)
//
// `Default` is the reference's default partition: every node that does not depend on a
// tangent runs in the forward graph, everything else in the backward graph, and the forward
// graph saves exactly the values the backward graph reads.
// `MinCut` is the reference's min-cut rematerialization partition: it saves the cheapest set
// of values (bytes weighted by distance from the backward, doubled where the value would not
// otherwise be materialized) from which the backward can recompute the rest with cheap,
// fusible ops, then trades recomputation for memory under `memory_budget` with a knapsack.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "autograd/joint_graph.h"
#include "support/diagnostic.h"

namespace kiln {

enum class PartitionKind { Default, MinCut };

enum class KnapsackSolver { Greedy, DynamicProgramming };

// The options of the min-cut partitioner, with the reference's defaults
// (torch._functorch.config). A value, passed in, never global.
struct PartitionOptions {
  PartitionKind kind = PartitionKind::MinCut;
  // Fraction in [0, 1] of the runtime-optimal activation memory, measured from "save only the
  // inputs" (0) to the min cut's saved set (1).
  double memory_budget = 1.0;
  KnapsackSolver solver = KnapsackSolver::DynamicProgramming;
  // Ban rules (SPEC 5.2 should_ban_recomputation and the solve_min_cut bans).
  bool ban_recompute_used_far_apart = true;
  bool ban_recompute_long_fusible_chains = true;
  bool ban_recompute_materialized_backward = true;
  bool ban_recompute_not_in_allowlist = true;
  bool ban_recompute_reductions = true;
  // Turns off the first four bans.
  bool aggressive_recomputation = false;
  // Views cost nothing to recompute: never saved, always recomputed from their base.
  bool recompute_views = false;
  // Parameters (role `param`) live as long as the model: saving them costs nothing.
  bool treat_parameters_as_free_to_save = true;
  int max_dist_from_bw = 1000;
};

struct SavedValue {
  std::string name;  // the value's name in the backward graph
  TensorType type;
  int64_t bytes = 0;  // 0 for a symbolic shape
};

struct Partition {
  std::unique_ptr<Graph> forward;
  std::unique_ptr<Graph> backward;
  int num_forward_outputs = 0;  // forward's first outputs; the rest are the saved values
  int num_saved = 0;            // backward's first inputs; the rest are the tangents
  std::vector<SavedValue> saved;
  // Bytes of the saved values whose shapes are static (symbolic ones are not counted).
  int64_t saved_bytes = 0;
  // Nodes of the backward graph that the forward graph also computes (recomputation).
  int recomputed_nodes = 0;
  // Those nodes, in the backward graph (which the Partition owns), in its order.
  std::vector<const Node*> recomputed;
};

// Fails for a memory budget outside [0, 1], and for saved values of more than 2^63 bytes.
Expected<Partition> partition(const JointGraph& joint, const PartitionOptions& options = {});

// Fails for saved values of more than 2^63 bytes.
Expected<Partition> partition_default(const JointGraph& joint);

}  // namespace kiln
