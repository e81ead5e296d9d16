// Building the forward and backward graphs of a partition from the values the forward saves
// (SPEC.md 5.2 _extract_fwd_bwd_modules and reordering_to_mimic_autograd_engine).
#pragma once

#include <vector>

#include "autograd/partition.h"
#include "autograd/partition/joint_view.h"

namespace kiln::partitioning {

// The items the backward computes when the forward saves `saved`: everything the gradient
// outputs need that is not saved and not a tangent, in graph order. A primal input that is
// needed but not saved is an internal error (the min cut never produces one).
std::vector<int> backward_items(const JointView& view, const std::vector<const Value*>& saved);

// Saved values the backward actually reads (the others are dropped), in the given order.
std::vector<const Value*> used_saved_values(const JointView& view, const std::vector<const Value*>& saved);

// The forward graph computes its outputs and `saved` (unused saved values are dropped); the
// backward graph takes them and the tangents and computes the gradients, its nodes ordered
// like the autograd engine would run them: from the first user of a tangent on, each node
// preceded by the recomputed forward nodes it needs. A saved value of static shape with
// more than 2^63 bytes, or saved values totalling more, are an error.
Expected<Partition> extract_partition(const JointView& view, const std::vector<const Value*>& saved);

}  // namespace kiln::partitioning
