// Reductions read once: two reduction kernels over the same loops that read a buffer in common
// become one kernel whose reduce loops fold every value into its own reduce op (several reduce
// ops in a row, loop_ir.h), so the buffer is read once: sum, amax and prod of one tensor over
// one dim, a single pass. Each reduce op keeps its own state, updated in the order it was
// before, so no output's order of accumulation changes (two identical folds of one value, as
// avg_pool2d twice over one input, become one).
//
// Only plain folds (sum, prod, max, min) merge: an accumulator that joins by division (Welford)
// or carries an index changes how a GPU block joins every accumulator beside it. Column
// reductions (loop_ir.h) merge only with column reductions, and only where `columns` says the
// backend's interchanged loops hold several reduce ops (layer_norm's backward: the bias's and
// the weight's gradients, both sums over the rows of the tangent, read it once).
// The caller checks the order: `b` runs after `a` and may move up to it (it reads nothing `a`
// or a kernel between them writes, and writes nothing they read or write).
#pragma once

#include <cstddef>

#include "lower/loop_ir.h"

namespace kiln {

// The most body ops a merge of kernels makes (pointwise or reductions): each merge rebuilds the
// merged body, so merging a chain of n kernels into one cost n^2 (a chain of 100,000 negs:
// minutes), and a body that long only slows the compiler down.
inline constexpr size_t kMaxMergedBodyOps = 512;

// Appends `b`'s reduce loops, reduce ops and epilogue to those of `a` (loads both make of one
// element merge) when both are reductions over the same loops of plain folds that read a
// buffer in common within their reduce loops, and both reduce rows or both (with `columns`)
// columns; false, leaving `a` alone, otherwise.
bool merge_reductions(LoopKernel& a, const LoopKernel& b, bool columns);

}  // namespace kiln
