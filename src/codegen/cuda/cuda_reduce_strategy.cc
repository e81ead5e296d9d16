#include "codegen/cuda/cuda_reduce_strategy.h"

#include <algorithm>
#include <bit>

namespace kiln::cuda {

namespace {

constexpr int kWarp = 32;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Splits of `row_points` into chunks of at least `min_chunk`, enough that `outputs` times them
// reaches `wanted` (threads or blocks that fill the device).
int64_t splits_for(int64_t outputs, int64_t row_points, int64_t wanted, int64_t min_chunk) {
  const int64_t most = std::max<int64_t>(1, row_points / min_chunk);
  return std::clamp<int64_t>(ceil_div(wanted, std::max<int64_t>(1, outputs)), 1, most);
}

// Column groups of `columns` side by side in a block of kMaxBlockThreads, the rest of the block
// row lanes; chunks of rows enough to give each multiprocessor kColumnBlocksPerMultiprocessor
// blocks, each lane folding at least kMinColumnChunk rows.
ReducePlan plan_columns(int64_t outputs, int64_t row_points, int columns, const CudaTarget& target) {
  ReducePlan plan;
  plan.strategy = ReduceStrategy::ColumnPartials;
  plan.columns = columns;
  const int64_t groups = ceil_div(outputs, columns);
  plan.groups =
      static_cast<int>(std::min<int64_t>(kColumnGroupsPerBlock, std::bit_ceil(static_cast<uint64_t>(groups))));
  plan.lanes = kMaxBlockThreads / plan.groups;
  const int64_t column_blocks = ceil_div(groups, plan.groups);
  plan.splits = splits_for(column_blocks, row_points, target.multiprocessors * kColumnBlocksPerMultiprocessor,
                           plan.lanes * kMinColumnChunk);
  plan.chunk = ceil_div(row_points, plan.splits);
  plan.partials = row_launch(column_blocks * plan.splits, kMaxBlockThreads, target);
  plan.finish = pointwise_launch(outputs, target);
  return plan;
}

}  // namespace

ReducePlan plan_reduction(int64_t outputs, int64_t row_points, int columns, const CudaTarget& target, bool warp_rows) {
  ReducePlan plan;
  const int64_t resident_threads = int64_t{target.multiprocessors} * target.max_threads_per_multiprocessor;
  if (columns > 0 && outputs > 0 && row_points >= 2 * kMinColumnChunk)
    return plan_columns(outputs, row_points, columns, target);
  if (warp_rows && row_points <= kWarpRowMostPoints && outputs * kWarp >= resident_threads) {
    plan.strategy = ReduceStrategy::WarpPerRow;
    plan.partials = row_launch(ceil_div(outputs, kWarpRowsPerBlock), kWarp * kWarpRowsPerBlock, target);
    return plan;
  }
  if (outputs > 0 && outputs < target.multiprocessors && row_points >= kSplitMinPoints) {
    plan.strategy = ReduceStrategy::SplitRow;
    const int64_t resident_blocks = resident_threads / kMaxBlockThreads;
    plan.splits = splits_for(outputs, row_points, resident_blocks, kMinBlockChunk);
    plan.chunk = ceil_div(row_points, plan.splits);
    plan.partials = row_launch(outputs * plan.splits, plan.chunk, target);
    if (warp_rows) {  // a warp per output folds its partials
      plan.warp_finish = true;
      const int64_t warps = std::min<int64_t>(outputs, kWarpRowsPerBlock);
      plan.finish = {static_cast<uint32_t>(ceil_div(outputs, warps)), static_cast<uint32_t>(kWarp * warps)};
    } else {
      plan.finish = pointwise_launch(outputs, target);
    }
    return plan;
  }
  plan.partials = row_launch(outputs, row_points, target);
  return plan;
}

}  // namespace kiln::cuda
