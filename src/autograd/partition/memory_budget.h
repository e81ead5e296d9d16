// choose_saved_values_set (SPEC.md 5.2): which values the forward saves under
// PartitionOptions::memory_budget.
//
// Budget 1 is the runtime-optimal min cut; budget 0 keeps only what the backward reads of the
// inputs. In between, the reference picks the first of "more aggressive" and "aggressive" cuts
// that fits, else a knapsack over the aggressive cut's banned values, re-solved as a min cut;
// its saved bytes can then grow as the budget shrinks. kiln makes the same candidates (the
// three cuts, the inputs, and the knapsack cuts for budgets 0, 0.01, ..., 0.99, all computed
// independently of the requested budget) and picks, among those whose bytes fit
//   bytes(inputs) + budget * (bytes(min cut) - bytes(inputs)),
// the one that recomputes the least (estimated FLOPs). A smaller budget only removes
// candidates, so saved bytes never increase as the budget decreases.
#pragma once

#include <vector>

#include "autograd/partition.h"
#include "autograd/partition/joint_view.h"

namespace kiln::partitioning {

// Requires a joint graph with a backward (JointView::has_backward).
Expected<std::vector<const Value*>> choose_saved_values(const JointView& view, const PartitionOptions& options);

}  // namespace kiln::partitioning
