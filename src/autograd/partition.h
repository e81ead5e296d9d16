// Splitting a joint graph (joint_graph.h) into a forward graph and a backward graph.
// `partition_default` is the reference's default partition: every node that does not depend
// on a tangent runs in the forward graph, everything else in the backward graph, and the
// forward graph saves exactly the values the backward graph reads.
//   forward:  primals -> (forward outputs..., saved...)
//   backward: (saved..., tangents...) -> (gradients...)
#pragma once

#include <memory>
#include <vector>

#include "autograd/joint_graph.h"

namespace kiln {

struct Partition {
  std::unique_ptr<Graph> forward;
  std::unique_ptr<Graph> backward;
  int num_forward_outputs = 0;  // forward's first outputs; the rest are the saved values
  int num_saved = 0;            // backward's first inputs; the rest are the tangents
  // Bytes of the saved values whose shapes are static (symbolic ones are not counted).
  int64_t saved_bytes = 0;
};

Partition partition_default(const JointGraph& joint);

}  // namespace kiln
