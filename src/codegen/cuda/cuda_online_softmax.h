// A softmax's two statistics of a row in memory in one pass (cuda_block_reduce.cc's parts): a
// fused kernel's reduction part taking the row's max m (stored as a per-row f32 statistic t) and
// the next part's sum of exp(x - t) over the same row read the row twice. Folded, each thread
// keeps the online pair (m, s): a point x above m rescales s by exp(m - x) and makes x the max;
// any other point adds exp(x - m). Threads' pairs join in block_reduce's fixed tree by the same
// rescaling (BlockAccumulator::online_max_sum), so the row is read once for both.
#pragma once

#include "lower/loop_ir.h"

namespace kiln::cuda {

// Whether reduction parts `max_part` then `sum_part` of one fused kernel of `p` (next to each
// other, loops collapsed) fold into one online pass: each reduces the same loops with one
// reduce op; `max_part`'s is a max of an f32 value v (its ops before the reduce only loads
// without masks or indirect terms, constants, computes and casts) whose epilogue is one store
// of it into an f32 buffer t at a per-row index; `sum_part`'s is an f32 sum of exp(v' - t[that
// index]), v' the same ops from the same loads as v, its other ops before the reduce as pure as
// `max_part`'s, and neither part's row ops load t other than that.
bool folds_online(const LoopProgram& p, const LoopKernel& max_part, const LoopKernel& sum_part);

}  // namespace kiln::cuda
