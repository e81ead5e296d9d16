// A fused row held in registers (codegen/cuda/cuda_held_row.h): which accesses the plan holds,
// which stores still reach memory, the vector width, the reasons a row stays in memory, and
// the kernel the emitter writes for it (compiled by NVRTC without spills where it is installed).
#include <gtest/gtest.h>

#include <string>

#include "codegen/cuda/cuda_emitter.h"
#include "codegen/cuda/cuda_held_row.h"
#include "loop_text_util.h"
#include "runtime/cuda/nvrtc.h"

namespace kiln::cuda {
namespace {

constexpr auto parse = &test::parse_loop_program;
constexpr auto contains = &test::has_text;

// out0 = x - max(x) over rows of `cols` (the row's max through temporary %t0); `buffers` and
// `kernels`: more of each after its own.
LoopProgram max_shift(int64_t rows, int64_t cols, const std::string& buffers = "", const std::string& kernels = "") {
  const std::string r = std::to_string(rows), c = std::to_string(cols);
  return parse("loops @m(%x: f32[" + r + "," + c + "]) -> (%out0) {\n  buffer %t0 : f32[" + r +
               "] strides [1]\n  buffer %out0 : f32[" + r + "," + c + "] strides [" + c + ", 1]\n" + buffers +
               "  kernel @k0 fused {\n    for i0 in range(" + r + ") {\n      part reduction {\n" +
               "        for i1 in range(" + c + ") reduce {\n          %0 = load %x[" + c + "*i0 + i1]\n        }\n" +
               "        %1 = reduce max %0 : f32\n        store %t0[i0], %1\n      }\n      part pointwise {\n" +
               "        for i1 in range(" + c + ") {\n          %0 = load %x[" + c + "*i0 + i1]\n" +
               "          %1 = load %t0[i0]\n          %2 = sub %0, %1 : f32\n          store %out0[" + c +
               "*i0 + i1], %2\n        }\n      }\n    }\n  }\n" + kernels + "}\n");
}

// `s` compiles with NVRTC to sm_90 without a spill or a stack frame (skipped without NVRTC);
// the last check of a test.
void expect_no_spills(const CudaProgramSource& s) {
  if (!nvrtc_version()) GTEST_SKIP() << "NVRTC is not installed: " << nvrtc_version().error().message();
  Expected<Cubin> cubin = compile_cuda_to_cubin(s.source());
  ASSERT_TRUE(cubin) << cubin.error().message();
  for (const KernelResources& r : cubin->kernels) {
    EXPECT_FALSE(r.spills()) << r.name;
    EXPECT_EQ(r.stack_frame_bytes, 0) << r.name;
  }
}

TEST(CudaHeldRow, TheRowIsLoadedOnceAndItsStatisticStaysInARegister) {
  const LoopProgram p = max_shift(64, 8);
  const HeldRow h = plan_held_row(p, p.kernels.at(0), CudaTarget{});
  ASSERT_EQ(h.reason, "");
  EXPECT_EQ(h.width, 4);  // 16 bytes of f32
  EXPECT_EQ(h.groups, 2);
  EXPECT_EQ(h.launch.shape.block, 32u);
  EXPECT_EQ(h.launch.groups_per_thread, 1);
  ASSERT_EQ(h.values.size(), 3u);  // x's row, the max, out0's row
  EXPECT_TRUE(h.values[0].row);
  EXPECT_TRUE(h.values[0].load_first);
  EXPECT_FALSE(h.values[1].row);
  EXPECT_FALSE(h.values[1].load_first);
  EXPECT_FALSE(h.values[1].store_to_memory);  // a temporary only this kernel reads
  EXPECT_TRUE(h.values[2].store_to_memory);   // the output
  EXPECT_EQ(h.value_of.at(0), (std::vector<int>{0, -1, 1}));
  EXPECT_EQ(h.value_of.at(1), (std::vector<int>{0, 1, -1, 2}));
}

TEST(CudaHeldRow, AStatisticAnotherKernelReadsIsStoredToo) {
  const LoopProgram p = max_shift(64, 8, "  buffer %out1 : f32[64] strides [1]\n",
                                  "  kernel @k1 pointwise {\n    for i0 in range(64) {\n      %0 = load %t0[i0]\n"
                                  "      store %out1[i0], %0\n    }\n  }\n");
  const HeldRow h = plan_held_row(p, p.kernels.at(0), CudaTarget{});
  ASSERT_EQ(h.reason, "");
  EXPECT_TRUE(h.values.at(1).store_to_memory);
}

TEST(CudaHeldRow, AnOddRowTakesAPointAGroup) {
  const LoopProgram p = max_shift(64, 7);
  const HeldRow h = plan_held_row(p, p.kernels.at(0), CudaTarget{});
  ASSERT_EQ(h.reason, "");
  EXPECT_EQ(h.width, 1);
  EXPECT_EQ(h.groups, 7);
}

TEST(CudaHeldRow, ARowTooLongForTheRegistersStaysInMemory) {
  const LoopProgram p = max_shift(64, 1 << 16);
  const HeldRow h = plan_held_row(p, p.kernels.at(0), CudaTarget{});
  EXPECT_EQ(h.reason, "a row of 65536 points in 2 arrays needs more registers than 256 threads have");
  const CudaProgramSource s = emit_cuda_program(p);
  EXPECT_TRUE(contains(s.kernel_text.at(0), "its parts in order (the row in memory: a row of 65536 points"))
      << s.kernel_text[0];
}

TEST(CudaHeldRow, PartsOverDifferentRowsStayInMemory) {
  const LoopProgram p = parse(
      "loops @d(%x: f32[4,8]) -> (%out0) {\n  buffer %t0 : f32[4] strides [1]\n"
      "  buffer %out0 : f32[4,4] strides [4, 1]\n  kernel @k0 fused {\n    for i0 in range(4) {\n"
      "      part reduction {\n        for i1 in range(8) reduce {\n          %0 = load %x[8*i0 + i1]\n"
      "        }\n        %1 = reduce sum %0 : f32\n        store %t0[i0], %1\n      }\n"
      "      part pointwise {\n        for i1 in range(4) {\n          %0 = load %t0[i0]\n"
      "          store %out0[4*i0 + i1], %0\n        }\n      }\n    }\n  }\n}\n");
  EXPECT_EQ(plan_held_row(p, p.kernels.at(0), CudaTarget{}).reason, "parts walk different row loops");
}

TEST(CudaHeldRow, TheKernelReadsTheRowOnceWithVectorsAndNoBarrierBetweenParts) {
  const CudaProgramSource s = emit_cuda_program(max_shift(4096, 1024));
  const std::string& k = s.kernel_text.at(0);
  EXPECT_TRUE(contains(k,
                       "a block per row held in registers (4 groups of 4 points a thread), its parts in order, "
                       "grid 4096 x block 64"))
      << k;
  EXPECT_TRUE(contains(k, "union { kiln_v16 v[1]; float e[4]; } h0[4];")) << k;
  // x's groups loaded once, in part 0; out0's stored as vectors; the max never stored.
  EXPECT_TRUE(contains(k, "h0[j].v[0] = ((const kiln_v16*)(b0_x + 1024 * i0 + i2))[0];")) << k;
  EXPECT_TRUE(contains(k, "((kiln_v16*)(b2_out0 + 1024 * i0 + i2))[0] = h2[j].v[0];")) << k;
  EXPECT_FALSE(contains(k, "b1_t0[")) << k;
  EXPECT_EQ(k.find("b0_x +"), k.rfind("b0_x +")) << k;
  // The max: shuffles in each warp, the two warps' states through shared slots.
  EXPECT_TRUE(contains(k, "__shfl_down_sync(0xffffffffu, a0, step)")) << k;
  EXPECT_TRUE(contains(k, "__shared__ float s_a0[3];")) << k;
  expect_no_spills(s);
}

// out0 = x * m2(x) over rows of 1024: a held row whose reduction part has a welford_m2 and no
// welford_mean (its own sum gives the mean).
LoopProgram m2_scale() {
  return parse(
      "loops @v(%x: f32[4096,1024]) -> (%out0) {\n  buffer %t0 : f32[4096] strides [1]\n"
      "  buffer %out0 : f32[4096,1024] strides [1024, 1]\n  kernel @k0 fused {\n    for i0 in range(4096) {\n"
      "      part reduction {\n        for i1 in range(1024) reduce {\n          %0 = load %x[1024*i0 + i1]\n"
      "        }\n        %1 = reduce welford_m2 %0 : f32\n        store %t0[i0], %1\n      }\n"
      "      part pointwise {\n        for i1 in range(1024) {\n          %0 = load %x[1024*i0 + i1]\n"
      "          %1 = load %t0[i0]\n          %2 = mul %0, %1 : f32\n          store %out0[1024*i0 + i1], %2\n"
      "        }\n      }\n    }\n  }\n}\n");
}

TEST(CudaHeldRow, AWelfordM2TakesTwoPassesOverTheRegisters) {
  const LoopProgram p = m2_scale();
  const HeldRow h = plan_held_row(p, p.kernels.at(0), CudaTarget{});
  ASSERT_EQ(h.reason, "");
  EXPECT_EQ(h.two_pass_m2, (std::vector<bool>{true, false}));
  const CudaProgramSource s = emit_cuda_program(p);
  const std::string& k = s.kernel_text.at(0);
  // Pass 1 sums the operand; pass 2 the squared deviations from its mean; no Welford state.
  EXPECT_TRUE(contains(k, "a0 += (double)v0;")) << k;
  EXPECT_TRUE(contains(k, "const double a0_mean = a0 * (1.0 / 1024.0);")) << k;
  EXPECT_TRUE(contains(k, "const double a0_d = (double)v0 - a0_mean;")) << k;
  EXPECT_TRUE(contains(k, "a0_dev += (double)(a0_d * a0_d);")) << k;
  EXPECT_TRUE(contains(k, "const float v1 = (float)s_a0_dev[2];")) << k;
  EXPECT_FALSE(contains(k, "__drcp_rn")) << k;
  EXPECT_FALSE(contains(k, "a0_n")) << k;
  EXPECT_EQ(k.find("b0_x +"), k.rfind("b0_x +")) << k;  // both passes read the registers
  expect_no_spills(s);
}

// out0 = f(x) / sum(f(x)) over rows of 1024, f the op `f`: part 1 computes again what part 0
// computed at the same point.
LoopProgram normalized(const std::string& f) {
  return parse(
      "loops @e(%x: f32[4096,1024]) -> (%out0) {\n  buffer %t0 : f32[4096] strides [1]\n"
      "  buffer %out0 : f32[4096,1024] strides [1024, 1]\n  kernel @k0 fused {\n    for i0 in range(4096) {\n"
      "      part reduction {\n        for i1 in range(1024) reduce {\n          %0 = load %x[1024*i0 + i1]\n"
      "          %1 = " +
      f +
      " %0 : f32\n        }\n        %2 = reduce sum %1 : f32\n        store %t0[i0], %2\n"
      "      }\n      part pointwise {\n        for i1 in range(1024) {\n          %0 = load %x[1024*i0 + i1]\n"
      "          %1 = " +
      f +
      " %0 : f32\n          %2 = load %t0[i0]\n          %3 = div %1, %2 : f32\n"
      "          store %out0[1024*i0 + i1], %3\n        }\n      }\n    }\n  }\n}\n");
}

TEST(CudaHeldRow, AnExponentialALaterPartComputesAgainIsHeld) {
  const LoopProgram p = normalized("exp");
  const HeldRow h = plan_held_row(p, p.kernels.at(0), CudaTarget{});
  ASSERT_EQ(h.reason, "");
  ASSERT_EQ(h.values.size(), 4u);  // x's row, the sum, out0's row, the exponentials
  EXPECT_EQ(h.values[3].buffer, -1);
  EXPECT_EQ(h.values[3].part, 0);
  EXPECT_EQ(h.values[3].op, 1);
  EXPECT_EQ(h.value_of.at(0).at(1), 3);  // part 0's exp writes it
  EXPECT_EQ(h.value_of.at(1).at(1), 3);  // part 1's reads it
  const CudaProgramSource s = emit_cuda_program(p);
  const std::string& k = s.kernel_text.at(0);
  EXPECT_TRUE(contains(k, "union { kiln_v16 v[1]; float e[4]; } h3[4];  // part 0's v1, the thread's points")) << k;
  EXPECT_TRUE(contains(k, "h3[j].e[l] = v1;")) << k;
  EXPECT_TRUE(contains(k, "const float v1 = h3[j].e[l];  // computed in part 0")) << k;
  EXPECT_EQ(k.find("expf("), k.rfind("expf(")) << k;  // one exponential a point
  expect_no_spills(s);
}

TEST(CudaHeldRow, PlainArithmeticIsComputedAgainNotHeld) {
  const LoopProgram p = normalized("neg");
  const HeldRow h = plan_held_row(p, p.kernels.at(0), CudaTarget{});
  ASSERT_EQ(h.reason, "");
  EXPECT_EQ(h.values.size(), 3u);
  EXPECT_EQ(h.value_of.at(1).at(1), -1);
}

TEST(CudaHeldRow, AValueWhoseHeldInputIsStoredBetweenIsComputedAgain) {
  // Parts 0 and 2 both take exp of t1's row, but part 1 stores t1 in between.
  const std::string row = "[1024*i0 + i1]";
  const auto part = [&](const std::string& kind, const std::string& body) {
    return "      part " + kind + " {\n        for i1 in range(1024)" + (kind == "reduction" ? " reduce" : "") +
           " {\n" + body + "        }\n";
  };
  const LoopProgram p = parse(
      "loops @s(%x: f32[4096,1024]) -> (%out0) {\n  buffer %t0 : f32[4096] strides [1]\n"
      "  buffer %t1 : f32[4096,1024] strides [1024, 1]\n  buffer %out0 : f32[4096,1024] strides [1024, 1]\n"
      "  kernel @k0 fused {\n    for i0 in range(4096) {\n" +
      part("reduction", "          %0 = load %t1" + row + "\n          %1 = exp %0 : f32\n") +
      "        %2 = reduce sum %1 : f32\n        store %t0[i0], %2\n      }\n" +
      part("pointwise", "          %0 = load %x" + row + "\n          store %t1" + row + ", %0\n") + "      }\n" +
      part("pointwise", "          %0 = load %t1" + row +
                            "\n          %1 = exp %0 : f32\n          %2 = load %t0[i0]\n"
                            "          %3 = div %1, %2 : f32\n          store %out0" +
                            row + ", %3\n") +
      "      }\n    }\n  }\n}\n");
  const HeldRow h = plan_held_row(p, p.kernels.at(0), CudaTarget{});
  ASSERT_EQ(h.reason, "");
  for (const HeldValue& v : h.values) EXPECT_GE(v.buffer, 0);
  EXPECT_EQ(h.value_of.at(2).at(1), -1);
}

}  // namespace
}  // namespace kiln::cuda
