// joint_pattern: joint_graph plus the cleanups that precede the pattern sets.
#include "patterns/joint_pattern.h"

#include "autograd/joint_graph.h"
#include "passes/fold_constants.h"
#include "passes/remove_noop_ops.h"

namespace kiln {

GraphTransform joint_pattern(std::vector<std::string> wrt) {
  return [wrt = std::move(wrt)](const Graph& traced) -> Expected<std::shared_ptr<const Graph>> {
    KILN_ASSIGN_OR_RETURN(JointGraph joint, joint_graph(traced, JointOptions{.wrt = wrt}));
    Graph& g = *joint.graph;
    KILN_TRY(remove_noop_ops(g).status());
    KILN_TRY(fold_constants(g).status());
    return std::shared_ptr<const Graph>(std::move(joint.graph));
  };
}

}  // namespace kiln
