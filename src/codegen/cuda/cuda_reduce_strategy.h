// How a reduction kernel's work is spread on the GPU: a pure function of its extents and the
// device, unit-tested (tests/unit/test_cuda_launch.cc). docs/CUDA_CODEGEN.md has the numbers.
//  * BlockPerRow: a block per output point, its threads striding over the row and combining in
//    a fixed tree (rows short or long alike: a thread folds as many points as the row needs);
//  * SplitRow: few outputs (fewer than the device's multiprocessors) over long rows: each row
//    in `splits` chunks, a block per (output, chunk) writing its partial state to the scratch
//    workspace, then a thread per output folding its partials in chunk order;
//  * ColumnPartials: a column reduction (lower/loop_ir.h's is_column_reduction): a thread per
//    (column, chunk of rows), neighbouring threads on neighbouring columns (coalesced), each
//    folding its rows in order into a partial, then a thread per column folding the partials.
// Every strategy combines in a fixed order: no atomics, the same bits run after run.
#pragma once

#include <cstdint>

#include "codegen/cuda/cuda_launch.h"

namespace kiln::cuda {

enum class ReduceStrategy : uint8_t { BlockPerRow, SplitRow, ColumnPartials };

// Rows of at least this many points split when there are few outputs: below it one block's
// 256 threads fold a row in a few steps each.
inline constexpr int64_t kSplitMinPoints = 8192;
// Points a block (SplitRow) or a thread (ColumnPartials) folds at least, so partials stay few.
inline constexpr int64_t kMinBlockChunk = 2048;
inline constexpr int64_t kMinColumnChunk = 32;

struct ReducePlan {
  ReduceStrategy strategy = ReduceStrategy::BlockPerRow;
  int64_t splits = 1;    // chunks per output (SplitRow, ColumnPartials)
  int64_t chunk = 0;     // reduce points per chunk: ceil(row_points / splits)
  LaunchShape partials;  // the first launch (BlockPerRow: the only one)
  LaunchShape finish;    // SplitRow, ColumnPartials: a thread per output
};

// The plan for `outputs` output points of `row_points` reduce points each; `column`: a column
// reduction.
ReducePlan plan_reduction(int64_t outputs, int64_t row_points, bool column, const CudaTarget& target);

}  // namespace kiln::cuda
