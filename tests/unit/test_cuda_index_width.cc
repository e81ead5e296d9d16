// 32-bit index arithmetic in CUDA kernels (codegen/cuda/cuda_index_width.h): only where every
// count of points, grid-stride step and index expression provably stays within INT32_MAX.
#include <gtest/gtest.h>

#include <string>

#include "codegen/cuda/cuda_emitter.h"
#include "codegen/cuda/cuda_index_width.h"
#include "lower/loop_text.h"

namespace kiln::cuda {
namespace {

IndexExpr var(int v) { return IndexExpr::var(v); }

TEST(CudaIndexWidth, MagnitudeBoundsEveryPartialSum) {
  const std::vector<int64_t> extents = {4, 8};
  // 8*i0 + i1 + 3: 8*3 + 7 + 3.
  EXPECT_EQ(index_magnitude(var(0).scaled(8).plus(var(1)).plus(IndexExpr::constant_of(3)), extents), 34);
  // -8*i0 + i1 - 3: the partial sums reach 24 and 7 in magnitude, 3 more for the constant.
  EXPECT_EQ(index_magnitude(var(0).scaled(-8).plus(var(1)).plus(IndexExpr::constant_of(-3)), extents), 34);
  EXPECT_EQ(index_magnitude(IndexExpr::mod(var(1), 3), extents), 2);
  EXPECT_EQ(index_magnitude(IndexExpr::floor_div(var(1), 3), extents), 3);
  EXPECT_EQ(index_magnitude(var(0).scaled(int64_t{1} << 62), extents), std::nullopt);
}

LoopProgram copy(int64_t n, int64_t stride) {
  auto p = parse_loops("loops @c(%x: f32[" + std::to_string(n * stride) + "]) -> (%out0) {\n  buffer %out0 : f32[" +
                       std::to_string(n) + "] strides [1]\n  kernel @k0 pointwise {\n    for i0 in range(" +
                       std::to_string(n) + ") {\n      %0 = load %x[" + std::to_string(stride) +
                       "*i0]\n      store %out0[i0], %0\n    }\n  }\n}\n");
  EXPECT_TRUE(p) << p.error().to_string();
  return p ? *p : LoopProgram{};
}

TEST(CudaIndexWidth, SmallKernelsUseIntAndLargeOnesInt64) {
  EXPECT_TRUE(fits_int32(copy(1024, 1).kernels[0], 1024));
  const std::string narrow = emit_cuda_program(copy(1024, 1)).kernel_text[0];
  EXPECT_NE(narrow.find("for (int g = (int)(blockIdx.x * blockDim.x + threadIdx.x); g < 256; g += (int)(gridDim.x * "
                        "blockDim.x)) {"),
            std::string::npos)
      << narrow;
  // 2^20 points reading with stride 2^12: the load index reaches 2^32 - 2^12.
  EXPECT_FALSE(fits_int32(copy(1 << 20, 1 << 12).kernels[0], 1024));
  const std::string wide = emit_cuda_program(copy(1 << 20, 1 << 12)).kernel_text[0];
  EXPECT_NE(wide.find("for (int64_t p = (int64_t)blockIdx.x"), std::string::npos) << wide;
  EXPECT_NE(wide.find("b0_x[4096 * i0]"), std::string::npos) << wide;
}

TEST(CudaIndexWidth, TheGridStrideStepCountsAgainstTheLimit) {
  const int64_t n = (int64_t{1} << 31) - 1000;  // fits alone, not with a step of 1024 past it
  EXPECT_TRUE(fits_int32(copy(1000, 1).kernels[0], 1000));
  LoopKernel k = copy(1000, 1).kernels[0];
  k.loops = {n};
  EXPECT_TRUE(fits_int32(k, 999));
  EXPECT_FALSE(fits_int32(k, 1024));
}

}  // namespace
}  // namespace kiln::cuda
