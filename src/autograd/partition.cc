#include "autograd/partition.h"

#include <unordered_set>

#include "autograd/partition/extract.h"
#include "autograd/partition/joint_view.h"
#include "autograd/partition/memory_budget.h"

namespace kiln {

Expected<Partition> partition_default(const JointGraph& joint) {
  // Save what the backward reads from the forward side (primals or forward nodes), in the
  // order the backward first reads them, and gradients that need no tangent (such as zeros
  // for an input no path reaches).
  const partitioning::JointView view(joint);
  std::vector<const Value*> saved;
  std::unordered_set<const Value*> seen;
  const auto save = [&](const Value* v) {
    if (view.item(view.item_of(v)).in_tangent_closure) return;
    if (seen.insert(v).second) saved.push_back(v);
  };
  for (const partitioning::Item& it : view.items())
    if (it.in_tangent_closure && it.node != nullptr)
      for (const Operand& o : it.node->operands())
        if (o.value) save(o.value);
  const std::vector<Value*>& outs = joint.graph->outputs();
  for (size_t i = static_cast<size_t>(joint.num_forward_outputs); i < outs.size(); ++i) save(outs[i]);
  return partitioning::extract_partition(view, saved);
}

Expected<Partition> partition(const JointGraph& joint, const PartitionOptions& options) {
  if (!(options.memory_budget >= 0.0 && options.memory_budget <= 1.0))
    return make_error("partition: memory budget ", options.memory_budget, " is outside [0, 1]");
  if (options.kind == PartitionKind::Default) return partition_default(joint);
  const partitioning::JointView view(joint);
  // Nothing depends on a tangent: there is nothing to recompute.
  if (!view.has_backward()) return partition_default(joint);
  Expected<std::vector<const Value*>> saved = partitioning::choose_saved_values(view, options);
  if (!saved) return saved.error();
  return partitioning::extract_partition(view, *saved);
}

}  // namespace kiln
