// The CUDA emitter without a GPU (codegen/cuda): the ABI of each kernel (its launch's
// arguments), how the work is spread (launches), the order kept where stores repeat elements,
// index checks and the error slot, 64-bit index arithmetic past 2^31 points, determinism, the
// prelude's Philox constants from core/random.h, and a program compiled by NVRTC (skipped
// without it). tests/nvrtc compiles every lit and oracle graph; lit/codegen/cuda has goldens.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <string>

#include "codegen/cuda/cuda_emitter.h"
#include "codegen/cuda/cuda_prelude.h"
#include "core/random_constants.h"
#include "loop_text_util.h"
#include "runtime/cuda/nvrtc.h"

namespace kiln {
namespace {

constexpr auto parse = &test::parse_loop_program;
constexpr auto contains = &test::has_text;

// out0[i] = exp(x[i]) * 2 over `n` points; out1[r] = sum of x over row r of 8.
LoopProgram exp_and_row_sums(int64_t n) {
  const std::string s = std::to_string(n), rows = std::to_string(n / 8);
  return parse("loops @f(%x: f32[" + s + "]) -> (%out0, %out1) {\n  buffer %out0 : f32[" + s + "] strides [1]\n" +
               "  buffer %out1 : f32[" + rows + "] strides [1]\n" + "  kernel @k0 pointwise {\n    for i0 in range(" +
               s + ") {\n      %0 = load %x[i0]\n" +
               "      %1 = exp %0 : f32\n      %2 = const 2.0 : f32\n      %3 = mul %1, %2 : f32\n" +
               "      store %out0[i0], %3\n    }\n  }\n" + "  kernel @k1 reduction {\n    for i0 in range(" + rows +
               ") {\n      for i1 in range(8) reduce {\n" +
               "        %0 = load %x[8*i0 + i1]\n      }\n      %1 = reduce sum %0 : f32\n      store %out1[i0], %1\n" +
               "    }\n  }\n}\n");
}

TEST(CudaEmitter, EachKernelTakesTheBuffersItTouchesInBufferOrder) {
  const CudaProgramSource s = emit_cuda_program(exp_and_row_sums(1024));
  ASSERT_EQ(s.kernel_text.size(), 2u);
  ASSERT_EQ(s.launches.size(), 2u);
  const CudaLaunch& k0 = s.launches[0].at(0);
  EXPECT_EQ(k0.symbol, "kiln_f_k0");
  ASSERT_EQ(k0.args.size(), 2u);
  EXPECT_EQ(k0.args[0].kind, CudaArg::Kind::Buffer);
  EXPECT_EQ(k0.args[0].buffer, 0);
  EXPECT_EQ(k0.args[1].buffer, 1);
  EXPECT_TRUE(contains(s.kernel_text[0], "kiln_f_k0(const float* __restrict__ b0_x, float* __restrict__ b1_out0)"))
      << s.kernel_text[0];
  // A thread per 4 points (16-byte accesses); a block per output point, its 8 points folded by a
  // warp.
  EXPECT_EQ(k0.block[0], 256u);
  EXPECT_EQ(k0.grid[0], 1u);
  const CudaLaunch& k1 = s.launches[1].at(0);
  EXPECT_EQ(k1.grid[0], 128u);
  EXPECT_EQ(k1.block[0], 32u);
  // One warp: its states combine by shuffles, with no shared memory or barrier.
  EXPECT_TRUE(contains(s.kernel_text[1], "const double sh_a0 = __shfl_down_sync(0xffffffffu, a0, step);"))
      << s.kernel_text[1];
  EXPECT_FALSE(contains(s.kernel_text[1], "__shared__")) << s.kernel_text[1];
  EXPECT_FALSE(contains(s.kernel_text[1], "__syncthreads")) << s.kernel_text[1];
  EXPECT_EQ(s.scratch_bytes, 0);
}

TEST(CudaEmitter, TheSameProgramGivesTheSameBytes) {
  EXPECT_EQ(emit_cuda_program(exp_and_row_sums(4096)).source(), emit_cuda_program(exp_and_row_sums(4096)).source());
}

TEST(CudaEmitter, IndexArithmeticPast2To31PointsIs64Bit) {
  const int64_t n = int64_t{3} << 30;  // 3 * 2^30 points (groups of 4 of them): past INT32_MAX
  const CudaProgramSource s = emit_cuda_program(exp_and_row_sums(n));
  EXPECT_TRUE(contains(s.kernel_text[0],
                       "for (int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; g < 805306368; "
                       "g += (int64_t)gridDim.x * blockDim.x) {"))
      << s.kernel_text[0];
  // 402653184 rows of 8 points: a warp per row, 8 rows a block.
  EXPECT_TRUE(contains(s.kernel_text[1],
                       "for (int64_t row = (int64_t)blockIdx.x * 8 + (int64_t)threadIdx.x / 32; row < 402653184; "
                       "row += (int64_t)gridDim.x * 8) {"))
      << s.kernel_text[1];
}

// out0[idx[i]] = src[i] (a scatter, `unique` or not), the index checked.
LoopProgram scatter(const std::string& unique) {
  return parse(
      "loops @s(%i: i64[3], %src: f32[3]) -> (%out0) {\n  buffer %out0 : f32[4] strides [1]\n"
      "  kernel @k0 pointwise {\n    for i0 in range(3) {\n      %0 = load %i[i0]\n"
      "      %1 = indirect %0, size 4, wrap, index_put dim 0 at \"%2 = index_put(...)\"\n"
      "      %2 = load %src[i0]\n      store %out0[%1], %2" +
      unique + "\n    }\n  }\n}\n");
}

TEST(CudaEmitter, ACheckedIndexSetsTheErrorSlotItsLastArgument) {
  const CudaProgramSource s = emit_cuda_program(scatter(" unique"));
  const CudaLaunch& k = s.launches[0].at(0);
  ASSERT_EQ(k.args.size(), 4u);
  EXPECT_EQ(k.args.back().kind, CudaArg::Kind::ErrorSlot);
  EXPECT_TRUE(contains(s.kernel_text[0], "int* kiln_error)"));
  EXPECT_TRUE(contains(s.kernel_text[0], "const int64_t v1w = (int64_t)v0 < 0 ? (int64_t)v0 + 4 : (int64_t)v0;"));
  EXPECT_TRUE(contains(s.kernel_text[0], "if (kiln_bad) *kiln_error = 1;"));
  EXPECT_EQ(k.block[0], 32u);  // unique: its points in parallel
}

TEST(CudaEmitter, StoresThatMayRepeatAnElementRunInOrderOnOneThread) {
  const CudaProgramSource s = emit_cuda_program(scatter(""));
  const CudaLaunch& k = s.launches[0].at(0);
  EXPECT_EQ(k.grid[0], 1u);
  EXPECT_EQ(k.block[0], 1u);
  EXPECT_TRUE(contains(s.kernel_text[0], "points in order (stores repeat elements)"));
}

TEST(CudaEmitter, ExternKernelsHaveNoTextAndNoLaunch) {
  const CudaProgramSource s = emit_cuda_program(
      parse("loops @m(%a: f32[2,3], %b: f32[3,4]) -> (%out0) {\n  buffer %out0 : f32[2,4] strides [4,1]\n"
            "  kernel @k0 extern matmul(%a, %b) {} -> (%out0)\n}\n"));
  ASSERT_EQ(s.kernel_text.size(), 1u);
  EXPECT_EQ(s.kernel_text[0], "");
  EXPECT_TRUE(s.launches[0].empty());
}

TEST(CudaEmitter, ThePreludeDrawsWithCoreRandomsConstants) {
  const std::string prelude = cuda::cuda_prelude();
  for (uint64_t c : {uint64_t{kPhiloxMultiplier0}, uint64_t{kPhiloxMultiplier1}, uint64_t{kPhiloxWeyl0},
                     uint64_t{kPhiloxWeyl1}, kMix64Increment, kMix64Multiplier0, kMix64Multiplier1}) {
    char hex[24];
    std::snprintf(hex, sizeof hex, "%#" PRIx64, c);
    EXPECT_TRUE(contains(prelude, hex)) << hex;
  }
  EXPECT_FALSE(contains(prelude, "#include"));
}

// The sum of 2^20 values into one: split rows, partials of 1056 chunks in the scratch workspace
// (one 256-byte aligned array of doubles), then one thread folding them in order.
TEST(CudaEmitter, AFullSumSplitsIntoPartialsAndTheirFold) {
  const CudaProgramSource s = emit_cuda_program(
      parse("loops @t(%x: f32[1048576]) -> (%out0) {\n  buffer %out0 : f32[] strides []\n"
            "  kernel @k0 reduction {\n    for i0 in range(1048576) reduce {\n      %0 = load %x[i0]\n    }\n"
            "    %1 = reduce sum %0 : f32\n    store %out0[0], %1\n  }\n}\n"));
  ASSERT_EQ(s.launches.at(0).size(), 2u);
  EXPECT_EQ(s.launches[0][0].symbol, "kiln_t_k0_partials");
  EXPECT_EQ(s.launches[0][0].grid[0], 512u);  // chunks of at least 2048 points
  EXPECT_EQ(s.launches[0][1].symbol, "kiln_t_k0_finish");
  EXPECT_EQ(s.launches[0][1].args.back().kind, CudaArg::Kind::Scratch);
  EXPECT_EQ(s.scratch_bytes, 4096);  // 512 doubles
  // A warp folds the 512 partials: lane l partials l, l + 32, ..., then the lanes by shuffles.
  EXPECT_EQ(s.launches[0][1].grid[0], 1u);
  EXPECT_EQ(s.launches[0][1].block[0], 32u);
  EXPECT_TRUE(contains(s.kernel_text[0], "for (int s = threadIdx.x % 32; s < 512; s += 32) {")) << s.kernel_text[0];
  EXPECT_TRUE(contains(s.kernel_text[0], "a0 += g_a0[s * 1 + o];")) << s.kernel_text[0];
  if (!nvrtc_version()) GTEST_SKIP() << "NVRTC is not installed: " << nvrtc_version().error().message();
  Expected<Cubin> cubin = compile_cuda_to_cubin(s.source());
  ASSERT_TRUE(cubin) << cubin.error().message();
  EXPECT_EQ(cubin->kernels.size(), 2u);
}

TEST(CudaEmitter, TheProgramCompilesWithNvrtcWithoutSpills) {
  if (!nvrtc_version()) GTEST_SKIP() << "NVRTC is not installed: " << nvrtc_version().error().message();
  const CudaProgramSource s = emit_cuda_program(exp_and_row_sums(1 << 20));
  Expected<Cubin> cubin = compile_cuda_to_cubin(s.source());
  ASSERT_TRUE(cubin) << cubin.error().message();
  ASSERT_EQ(cubin->kernels.size(), 2u) << cubin->log;
  for (const KernelResources& k : cubin->kernels) {
    EXPECT_FALSE(k.spills()) << k.name;
    EXPECT_EQ(k.stack_frame_bytes, 0) << k.name;
  }
}

}  // namespace
}  // namespace kiln
