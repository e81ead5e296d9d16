// How a reduction kernel's work is spread on the GPU: a pure function of its extents and the
// device, unit-tested (tests/unit/test_cuda_launch.cc). docs/CUDA_CODEGEN.md has the numbers.
//  * BlockPerRow: a block per output point, its threads striding over the row and combining in
//    a fixed tree (rows short or long alike: a thread folds as many points as the row needs);
//  * WarpPerRow: many short rows: a warp per output point, kWarpRowsPerBlock of them a block,
//    its lanes striding over the row and combining by shuffles alone (no shared memory, no
//    barrier), so a row's latency overlaps the other warps' rows;
//  * SplitRow: few outputs (fewer than the device's multiprocessors) over long rows: each row
//    in `splits` chunks, a block per (output, chunk) writing its partial state to the scratch
//    workspace, then a warp per output folding its partials (lane l folds partials l, l + 32,
//    ... in order, the lanes joined by shuffles), or a thread per output folding them in chunk
//    order where the states join by a division (welford_m2);
//  * ColumnPartials: a column reduction (lower/loop_ir.h's is_column_reduction): a block per
//    (run of neighbouring columns, chunk of rows); each thread takes `columns` adjacent columns
//    (one 16-byte load a row where the accesses allow it) and every `lanes`-th row of the
//    chunk, neighbouring threads on neighbouring columns (coalesced); the block's row lanes
//    combine in a fixed tree in shared memory into one partial per column and chunk, then a
//    thread per column folds the partials in chunk order.
// Every strategy combines in a fixed order: no atomics, the same bits run after run.
#pragma once

#include <cstdint>

#include "codegen/cuda/cuda_launch.h"

namespace kiln::cuda {

enum class ReduceStrategy : uint8_t { BlockPerRow, WarpPerRow, SplitRow, ColumnPartials };

// WarpPerRow: rows of at most this many points, and at least as many rows as the device holds
// warps, so every warp has a row of its own; a block of 256 threads takes 8 rows.
inline constexpr int64_t kWarpRowMostPoints = 4096;
inline constexpr int kWarpRowsPerBlock = 8;

// Rows of at least this many points split when there are few outputs: below it one block's
// 256 threads fold a row in a few steps each.
inline constexpr int64_t kSplitMinPoints = 8192;
// Points a block (SplitRow) or a thread (ColumnPartials) folds at least, so partials stay few.
inline constexpr int64_t kMinBlockChunk = 2048;
inline constexpr int64_t kMinColumnChunk = 32;  // rows per row lane (ColumnPartials)
// ColumnPartials: column groups side by side in a block (a warp's worth: 32 x 16 bytes of a row
// per load), and blocks per multiprocessor the chunks of rows aim at: 1024 threads an SM, each
// with 4 16-byte loads in flight (unrolled), keep the memory busy, and the chunks (132 for
// [65536,1024] bf16) are few enough that the second pass is short. Measured on an H200 for
// [65536,1024] bf16 (docs/PERF.md): 2 blocks 75% of copy, 4 blocks 81%, either unrolled by 8
// 53% and 71%.
inline constexpr int64_t kColumnGroupsPerBlock = 32;
inline constexpr int64_t kColumnBlocksPerMultiprocessor = 4;

struct ReducePlan {
  ReduceStrategy strategy = ReduceStrategy::BlockPerRow;
  int64_t splits = 1;        // chunks per output (SplitRow, ColumnPartials)
  int64_t chunk = 0;         // reduce points per chunk: ceil(row_points / splits)
  int columns = 1;           // ColumnPartials: adjacent columns (output points) a thread takes
  int groups = 1;            // ColumnPartials: column groups of a block (a power of two) ...
  int lanes = 1;             // ... times row lanes (a power of two): the block's threads
  LaunchShape partials;      // the first launch (BlockPerRow: the only one)
  LaunchShape finish;        // SplitRow, ColumnPartials: a thread per output, or ...
  bool warp_finish = false;  // ... SplitRow: a warp per output (kWarpRowsPerBlock a block at most)
};

// The plan for `outputs` output points of `row_points` reduce points each; `columns` > 0: a
// column reduction whose threads may take that many adjacent columns (codegen/cuda's
// column_vectors), 0: another reduction. `warp_rows`: whether the kernel's states may join by
// shuffles in registers (not welford_m2's, whose join divides): WarpPerRow, and SplitRow's
// warp_finish.
ReducePlan plan_reduction(int64_t outputs, int64_t row_points, int columns, const CudaTarget& target,
                          bool warp_rows = false);

}  // namespace kiln::cuda
