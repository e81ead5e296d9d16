// The CUDA emitter's launch cost model (codegen/cuda/cuda_launch.h), its reduction strategies
// (cuda_reduce_strategy.h) and the CUDA backend's fusion limits, on the default target (an H100
// SXM: 132 SMs, 2048 threads each).
#include <gtest/gtest.h>

#include "codegen/cuda/cuda_launch.h"
#include "codegen/cuda/cuda_reduce_strategy.h"
#include "runtime/cuda/cuda_backend.h"

namespace kiln::cuda {
namespace {

TEST(CudaLaunch, PointwiseGivesAThreadPerPointInBlocksOf256) {
  const CudaTarget h100;
  EXPECT_EQ(pointwise_launch(1 << 20, h100).block, 256u);
  EXPECT_EQ(pointwise_launch(1 << 20, h100).grid, 4096u);
  EXPECT_EQ(pointwise_launch(1000, h100).block, 256u);
  EXPECT_EQ(pointwise_launch(1000, h100).grid, 4u);
}

TEST(CudaLaunch, FewPointsGiveOneBlockOfWholeWarps) {
  const CudaTarget h100;
  EXPECT_EQ(pointwise_launch(10, h100).block, 32u);
  EXPECT_EQ(pointwise_launch(10, h100).grid, 1u);
  EXPECT_EQ(pointwise_launch(33, h100).block, 64u);
  EXPECT_EQ(pointwise_launch(0, h100).grid, 1u);  // a launch runs, its loop does nothing
}

TEST(CudaLaunch, TheGridStopsAtFourWavesOfResidentBlocks) {
  const CudaTarget h100;
  const uint32_t waves = 132 * (2048 / 256) * 4;
  EXPECT_EQ(pointwise_launch(int64_t{1} << 40, h100).grid, waves);  // the grid-stride loop does the rest
  CudaTarget small = h100;
  small.multiprocessors = 2;
  EXPECT_EQ(pointwise_launch(int64_t{1} << 40, small).grid, 2u * 8 * 4);
}

TEST(CudaLaunch, RowsGetAPowerOfTwoThreadsUpTo256) {
  const CudaTarget h100;
  EXPECT_EQ(row_launch(16384, 1024, h100).block, 256u);
  EXPECT_EQ(row_launch(16384, 1024, h100).grid, 4224u);
  EXPECT_EQ(row_launch(100, 20, h100).block, 32u);
  EXPECT_EQ(row_launch(100, 20, h100).grid, 100u);
  EXPECT_EQ(row_launch(1, 100, h100).block, 128u);
  EXPECT_EQ(row_launch(0, 0, h100).grid, 1u);
}

TEST(CudaLaunch, ATargetWithSmallerBlocksIsRespected) {
  CudaTarget t;
  t.max_threads_per_block = 64;
  EXPECT_EQ(pointwise_launch(1 << 20, t).block, 64u);
  EXPECT_EQ(row_launch(10, 1 << 20, t).block, 64u);
}

TEST(CudaLaunch, AHeldRowTakesTheFewestThreadsThatHoldSixteenValuesOfAnArray) {
  const CudaTarget h100;
  // softmax over rows of 1024 bf16: 128 groups of 8, the input and output held.
  const HeldRowLaunch softmax = held_row_launch(16384, 128, 8, 2, h100);
  EXPECT_EQ(softmax.shape.block, 64u);  // 32 threads would hold 32 values of each
  EXPECT_EQ(softmax.groups_per_thread, 2);
  EXPECT_EQ(softmax.shape.grid, 16384u);  // a block per row
  // A short row: a warp, a group each (a thread past the row's 5 groups holds none).
  EXPECT_EQ(held_row_launch(100, 5, 4, 2, h100).shape.block, 32u);
  EXPECT_EQ(held_row_launch(100, 5, 4, 2, h100).groups_per_thread, 1);
}

TEST(CudaLaunch, AHeldRowLaunchTakesABlockPerRowPastFourWaves) {
  const CudaTarget h100;
  // softmax over f32[32768,1024]: 256 groups of 4 at 64 threads, past 4 waves of 132 x 32 blocks.
  const HeldRowLaunch softmax = held_row_launch(32768, 256, 4, 2, h100);
  EXPECT_EQ(softmax.shape.block, 64u);
  EXPECT_EQ(softmax.shape.grid, 32768u);
  EXPECT_EQ(held_row_launch(1 << 20, 5, 4, 2, h100).shape.grid, 1u << 20);
}

TEST(CudaLaunch, AHeldRowOfManyArraysTakesMoreThreads) {
  // 6 arrays of 256 groups of 4: 16 values each at 64 threads is 96 in all, past 64.
  const HeldRowLaunch l = held_row_launch(4096, 256, 4, 6, CudaTarget{});
  EXPECT_EQ(l.shape.block, 128u);
  EXPECT_EQ(l.groups_per_thread, 2);
}

TEST(CudaLaunch, ARowTooLongToHoldHasNoHeldLaunch) {
  // 50257 scalar points (an odd extent: no vectors) need 197 a thread at 256 threads.
  EXPECT_EQ(held_row_launch(8192, 50257, 1, 2, CudaTarget{}).groups_per_thread, 0);
  // The longest held bf16 row: 512 groups of 8 at 256 threads, 16 values a thread.
  EXPECT_EQ(held_row_launch(8192, 512, 8, 2, CudaTarget{}).groups_per_thread, 2);
  EXPECT_EQ(held_row_launch(8192, 513, 8, 2, CudaTarget{}).groups_per_thread, 0);
}

TEST(CudaReduceStrategy, ManyRowsGetABlockEach) {
  const ReducePlan p = plan_reduction(16384, 1024, 0, CudaTarget{});
  EXPECT_EQ(p.strategy, ReduceStrategy::BlockPerRow);
  EXPECT_EQ(p.partials.block, 256u);
  EXPECT_EQ(p.partials.grid, 4224u);
  EXPECT_EQ(plan_reduction(100, 4096, 0, CudaTarget{}).strategy, ReduceStrategy::BlockPerRow);     // short rows
  EXPECT_EQ(plan_reduction(132, 1 << 20, 0, CudaTarget{}).strategy, ReduceStrategy::BlockPerRow);  // a row per SM
}

TEST(CudaReduceStrategy, ManyShortRowsGetAWarpEachWhereTheirStatesJoinByShuffles) {
  // 132 SMs x 2048 threads = 8448 warps: as many rows of at most 4096 points take a warp each.
  const ReducePlan p = plan_reduction(16384, 1000, 0, CudaTarget{}, true);
  EXPECT_EQ(p.strategy, ReduceStrategy::WarpPerRow);
  EXPECT_EQ(p.partials.block, 256u);  // 8 rows a block
  EXPECT_EQ(p.partials.grid, 2048u);  // 16384 / 8
  EXPECT_EQ(plan_reduction(8448, 4096, 0, CudaTarget{}, true).strategy, ReduceStrategy::WarpPerRow);
  EXPECT_EQ(plan_reduction(8447, 4096, 0, CudaTarget{}, true).strategy, ReduceStrategy::BlockPerRow);    // fewer rows
  EXPECT_EQ(plan_reduction(8448, 4097, 0, CudaTarget{}, true).strategy, ReduceStrategy::BlockPerRow);    // longer rows
  EXPECT_EQ(plan_reduction(16384, 1000, 0, CudaTarget{}, false).strategy, ReduceStrategy::BlockPerRow);  // not allowed
  // Grids stay within kWavesPerGrid waves of resident blocks: 4224 blocks of 256 on an H100.
  EXPECT_EQ(plan_reduction(1 << 20, 64, 0, CudaTarget{}, true).partials.grid, 4224u);
}

TEST(CudaReduceStrategy, FewLongRowsSplitIntoChunksThatFillTheDevice) {
  const ReducePlan p = plan_reduction(1, int64_t{1} << 26, 0, CudaTarget{});
  EXPECT_EQ(p.strategy, ReduceStrategy::SplitRow);
  EXPECT_EQ(p.splits, 1056);  // 132 SMs x 8 resident blocks of 256
  EXPECT_EQ(p.chunk, 63551);  // ceil(2^26 / 1056)
  EXPECT_EQ(p.partials.grid, 1056u);
  EXPECT_EQ(p.partials.block, 256u);
  EXPECT_EQ(p.finish.grid, 1u);
  EXPECT_EQ(p.finish.block, 32u);
  // Chunks keep at least kMinBlockChunk points: 4 rows of 16384 split in 8, not 264.
  EXPECT_EQ(plan_reduction(4, 16384, 0, CudaTarget{}).splits, 8);
}

TEST(CudaReduceStrategy, ColumnsGetABlockPerColumnRunAndChunkOfRows) {
  // [65536,1024] bf16 column sums, 8 columns a thread (a 16-byte load a row): 128 column groups,
  // 32 of them side by side in a block of 256 with 8 row lanes, 4 blocks across the columns.
  const ReducePlan p = plan_reduction(1024, 65536, 8, CudaTarget{});
  EXPECT_EQ(p.strategy, ReduceStrategy::ColumnPartials);
  EXPECT_EQ(p.columns, 8);
  EXPECT_EQ(p.groups, 32);
  EXPECT_EQ(p.lanes, 8);
  EXPECT_EQ(p.splits, 132);  // 4 column blocks x 132 chunks: 4 blocks on each of 132 SMs
  EXPECT_EQ(p.chunk, 497);   // ceil(65536 / 132)
  EXPECT_EQ(p.partials.grid, 528u);
  EXPECT_EQ(p.partials.block, 256u);
  EXPECT_EQ(p.finish.grid, 4u);
  // A column a thread where the accesses allow no vectors: 1024 groups, 32 a block, 32 blocks.
  const ReducePlan scalar = plan_reduction(1024, 65536, 1, CudaTarget{});
  EXPECT_EQ(scalar.groups, 32);
  EXPECT_EQ(scalar.splits, 17);  // ceil(528 / 32)
  EXPECT_EQ(scalar.partials.grid, 544u);
  // Few columns: 3 groups side by side (rounded up to 4), the block's other threads row lanes.
  const ReducePlan narrow = plan_reduction(12, 1 << 20, 4, CudaTarget{});
  EXPECT_EQ(narrow.groups, 4);
  EXPECT_EQ(narrow.lanes, 64);
  EXPECT_EQ(narrow.splits, 512);  // 528 wanted, at most 2^20 / (64 lanes x 32 rows)
  // Each lane folds at least kMinColumnChunk rows: 4096 rows over 8 lanes split in 16, not 132.
  EXPECT_EQ(plan_reduction(1024, 4096, 8, CudaTarget{}).splits, 16);
  EXPECT_EQ(plan_reduction(1 << 20, 64, 8, CudaTarget{}).splits, 1);                           // enough columns alone
  EXPECT_EQ(plan_reduction(1024, 40, 8, CudaTarget{}).strategy, ReduceStrategy::BlockPerRow);  // few rows
}

TEST(CudaLaunch, AFusedRowTooLongForL2At256ThreadsTakes1024) {
  const CudaTarget h100;
  EXPECT_EQ(resident_blocks(256, h100), 132 * 8);
  EXPECT_EQ(resident_blocks(1024, h100), 132 * 2);
  // 1056 resident rows of 4 KB fit the 50 MiB L2: row_launch's block.
  EXPECT_EQ(memory_row_launch(16384, 1024, 4096, h100).block, 256u);
  // Up to 49648 bytes a row (50 MiB / 1056) too; a row of 50257 bf16 (100514 bytes) does not:
  // 264 rows in flight in blocks of 1024 threads (26.5 MB), the grid 4 waves of them.
  EXPECT_EQ(memory_row_launch(8192, 12412, 49648, h100).block, 256u);
  EXPECT_EQ(memory_row_launch(8192, 50257, 100514, h100).block, 1024u);
  EXPECT_EQ(memory_row_launch(8192, 50257, 100514, h100).grid, 132u * 2 * 4);
  CudaTarget t = h100;
  t.max_threads_per_block = 512;
  EXPECT_EQ(memory_row_launch(8192, 50257, 100514, t).block, 512u);
}

TEST(CudaPolicy, RowsFitInL2AndThereIsOnePerMultiprocessor) {
  const BackendPolicy p = cuda_policy(CudaTarget{});
  // 50 MiB of L2 over 132 * 2 resident blocks of 1024 threads: 198593 bytes a row, down to a
  // power of two: a row of 50257 bf16 (100514 bytes) is fused, of 50257 f32 not.
  EXPECT_EQ(p.schedule.max_row_bytes, 131072);
  EXPECT_EQ(p.schedule.min_rows, 132);
  EXPECT_TRUE(p.keeps_whole(OpKind::Linear));
  EXPECT_TRUE(p.keeps_whole(OpKind::Addmm));
  EXPECT_TRUE(p.keeps_whole(OpKind::Var));
  EXPECT_FALSE(p.keeps_whole(OpKind::Softmax));
  EXPECT_FALSE(p.keeps_whole(OpKind::Conv2d));  // im2col and one cuBLASLt matmul
}

}  // namespace
}  // namespace kiln::cuda
