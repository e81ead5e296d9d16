// A fused row in memory held in shared memory (codegen/cuda/cuda_shared_row.h, the launch rule
// in cuda_launch.h): which row a kernel holds, when the launch model takes it, and the copy's
// and the walks' text.
#include <gtest/gtest.h>

#include <string>

#include "codegen/cuda/cuda_emitter.h"
#include "codegen/cuda/cuda_launch.h"
#include "codegen/cuda/cuda_shared_row.h"
#include "loop_text_util.h"

namespace kiln::cuda {
namespace {

// out = src - max(src) over 264 rows of `points` f32 (too long to hold in registers), src the
// input x or, `in_place`, out itself.
LoopProgram max_shift(int points, bool in_place = false) {
  const std::string n = std::to_string(points), src = in_place ? "%out0" : "%x";
  return test::parse_loop_program(
      "loops @m(%x: f32[264," + n + "]) -> (%out0) {\n  buffer %t0 : f32[264] strides [1]\n" +
      "  buffer %out0 : f32[264," + n + "] strides [" + n + ", 1]\n  kernel @k0 fused {\n" +
      "    for i0 in range(264) {\n      part reduction {\n        for i1 in range(" + n + ") reduce {\n" +
      "          %0 = load " + src + "[" + n + "*i0 + i1]\n        }\n        %1 = reduce max %0 : f32\n" +
      "        store %t0[i0], %1\n      }\n      part pointwise {\n        for i1 in range(" + n + ") {\n" +
      "          %0 = load " + src + "[" + n + "*i0 + i1]\n          %1 = load %t0[i0]\n" +
      "          %2 = sub %0, %1 : f32\n          store %out0[" + n + "*i0 + i1], %2\n        }\n      }\n" +
      "    }\n  }\n}\n");
}

TEST(CudaSharedRow, TwoRowsAnSmOfSharedMemoryTakeTwoBlocksOf512) {
  const CudaTarget h100;
  // 228 KiB an SM over (row + 2 KiB): a row of 50257 bf16 (100528 bytes with its lead) twice.
  EXPECT_EQ(shared_row_blocks_per_multiprocessor(100528, h100), 2);
  const LaunchShape s = shared_row_launch(8192, 100528, h100);
  EXPECT_EQ(s.block, 512u);  // 65536 registers over 2 blocks of 64 registers a thread
  EXPECT_EQ(s.min_blocks, 2u);
  EXPECT_EQ(s.shared_bytes, 100528u);
  EXPECT_EQ(s.grid, 132u * 2 * 4);
  // Four rows an SM: blocks of 256 threads.
  EXPECT_EQ(shared_row_launch(8192, 50000, h100).block, 256u);
  EXPECT_EQ(shared_row_launch(8192, 50000, h100).min_blocks, 4u);
}

TEST(CudaSharedRow, ARowOnlyOneBlockAnSmHoldsStaysInMemory) {
  const CudaTarget h100;
  EXPECT_EQ(shared_row_blocks_per_multiprocessor(120016, h100), 1);  // 60000 bf16
  EXPECT_EQ(shared_row_launch(1024, 120016, h100).grid, 0u);
  EXPECT_EQ(shared_row_blocks_per_multiprocessor(232448 + 16, h100), 0);  // past the opt-in 227 KiB
  CudaTarget small = h100;
  small.shared_bytes_per_multiprocessor = 164 * 1024;  // an A100's
  EXPECT_EQ(shared_row_launch(8192, 100528, small).grid, 0u);
}

TEST(CudaSharedRow, TheFirstPartsVectorLoadIsHeldAndEveryWalkReadsSharedMemory) {
  const LoopProgram p = max_shift(25000);
  const SharedRow row = plan_shared_row(p, p.kernels.at(0), 1);
  EXPECT_EQ(row.buffer, 0);  // x
  EXPECT_EQ(row.width, 4);
  EXPECT_EQ(row.bytes, 100016);  // (25000 + 3) f32, rounded to 16 bytes
  const CudaProgramSource source = emit_cuda_program(p);
  ASSERT_EQ(source.launches.at(0).size(), 1u);
  EXPECT_EQ(source.launches.at(0).at(0).shared_bytes, 100016u);
  EXPECT_EQ(source.launches.at(0).at(0).block[0], 512u);
  const std::string text = source.kernel_text.at(0);
  EXPECT_TRUE(test::has_text(text, "__launch_bounds__(512, 2)")) << text;
  EXPECT_TRUE(test::has_text(text, "const kiln_v16* const src = (const kiln_v16*)(b0_x + first + head);")) << text;
  EXPECT_TRUE(test::has_text(text, "kiln_v16* const dst = (kiln_v16*)(kiln_row + lead + head);")) << text;
  EXPECT_TRUE(test::has_text(text, "l0.v[0] = ((const kiln_v16*)(kiln_row + first % 4 + i2))[0];")) << text;
  EXPECT_TRUE(test::has_text(text, "kiln_row[first % 4 + i1]")) << text;
  EXPECT_FALSE(test::has_text(text, "((const kiln_v16*)(b0_x + 25000 * i0 + i2))")) << text;
}

TEST(CudaSharedRow, ARowAPartStoresOrTooLongForTwoBlocksIsNotHeld) {
  const LoopProgram in_place = max_shift(25000, true);
  EXPECT_EQ(plan_shared_row(in_place, in_place.kernels.at(0), 1).buffer, -1);
  EXPECT_FALSE(test::has_text(emit_cuda_program(in_place).kernel_text.at(0), "kiln_row"));
  const LoopProgram long_row = max_shift(50257);  // 201040 bytes: one block an SM
  EXPECT_EQ(plan_shared_row(long_row, long_row.kernels.at(0), 1).buffer, 0);
  const CudaProgramSource source = emit_cuda_program(long_row);
  EXPECT_EQ(source.launches.at(0).at(0).shared_bytes, 0u);
  EXPECT_FALSE(test::has_text(source.kernel_text.at(0), "kiln_row"));
}

}  // namespace
}  // namespace kiln::cuda
