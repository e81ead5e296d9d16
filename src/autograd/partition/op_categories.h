// What the min-cut partitioner may recompute, and what fuses with what: the reference's
// get_default_op_list (SPEC.md 5.2) expressed over kiln's op table.
//   recomputable: cheap, deterministic ops (every elementwise op, views, creation, the
//                 reductions sum/mean/amax/var/std/argmax/any, clone, _to_copy, where,
//                 triu, gather, index);
//   compute-intensive: contractions (matmul family), convolution, attention;
//   random: ops that draw random numbers from a static seed. A random node that reads a
//           runtime generator state (an rng_state operand, joint_graph.h) replays its draws
//           wherever it runs, like the reference's functionalized rng ops: it is recomputable
//           and not "random" here;
//   fusible: recomputable or random; `cat` fuses as a consumer of anything.
#pragma once

#include "ir/graph.h"

namespace kiln::partitioning {

bool is_view(const Node& n);
bool is_recomputable(const Node& n);
bool is_compute_intensive(const Node& n);
bool is_random(const Node& n);
// In-place and side-effecting ops run exactly where the program put them: never recomputed.
bool must_stay_in_place(const Node& n);
// Whether consumer `b` can fuse with producer `a` (so `a` need not be materialized for it).
bool is_fusible(const Node& a, const Node& b);

}  // namespace kiln::partitioning
