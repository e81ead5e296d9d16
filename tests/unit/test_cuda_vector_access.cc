// Wide accesses in pointwise CUDA kernels (codegen/cuda/cuda_vector_access.h): the width from
// the narrowest and widest accesses, contiguous and broadcast operands, a one-loop kernel's
// tail, and each reason a kernel keeps the scalar path.
#include <gtest/gtest.h>

#include <string>

#include "codegen/cuda/cuda_vector_access.h"
#include "lower/loop_text.h"

namespace kiln::cuda {
namespace {

// out0[<store>] = <loads> over loops `extents` ("range(4) ... range(8)"): `body` the loads,
// `inputs` the graph's parameters.
PointwiseVectors plan_of(const std::string& inputs, const std::string& out, const std::vector<int64_t>& extents,
                         const std::string& body) {
  std::string loops, close;
  for (size_t d = 0; d < extents.size(); ++d) {
    loops += std::string(2 * d + 4, ' ') + "for i" + std::to_string(d) + " in range(" + std::to_string(extents[d]) + ") {\n";
    close = std::string(2 * d + 4, ' ') + "}\n" + close;
  }
  auto p = parse_loops("loops @f(" + inputs + ") -> (%out0) {\n  buffer %out0 : " + out + "\n  kernel @k0 pointwise {\n" +
                       loops + body + close + "  }\n}\n");
  EXPECT_TRUE(p) << p.error().to_string();
  return p ? pointwise_vectors(*p, p->kernels[0]) : PointwiseVectors{};
}

TEST(CudaVectorAccess, TheNarrowestAccessMoves16Bytes) {
  const PointwiseVectors bf16 = plan_of("%x: bf16[1024]", "bf16[1024] strides [1]", {1024},
                                        "      %0 = load %x[i0]\n      store %out0[i0], %0\n");
  EXPECT_EQ(bf16.width, 8);
  EXPECT_EQ(bf16.groups, 128);
  EXPECT_EQ(bf16.tail, 0);
  EXPECT_EQ(bf16.access, (std::vector<VectorAccess>{VectorAccess::Contiguous, VectorAccess::Contiguous}));
  // f32 in, bf16 out: 8 points, two 16-byte pieces of f32.
  const PointwiseVectors mixed = plan_of("%x: f32[1024]", "bf16[1024] strides [1]", {1024},
                                         "      %0 = load %x[i0]\n      %1 = cast %0 : bf16\n      store %out0[i0], %1\n");
  EXPECT_EQ(mixed.width, 8);
  EXPECT_EQ(vector_pieces(mixed.width, DType::F32).bytes, 16);
  EXPECT_EQ(vector_pieces(mixed.width, DType::F32).count, 2);
  EXPECT_EQ(vector_pieces(mixed.width, DType::BF16).count, 1);
}

TEST(CudaVectorAccess, TheWidestAccessMovesAtMost64Bytes) {
  // bool would take 16 points; f64 moves 8 x 8 bytes at most, so 8, the bools in 8 bytes.
  const PointwiseVectors p = plan_of("%x: f64[1024]", "bool[1024] strides [1]", {1024},
                                     "      %0 = load %x[i0]\n      %1 = cast %0 : bool\n      store %out0[i0], %1\n");
  EXPECT_EQ(p.width, 8);
  EXPECT_EQ(vector_pieces(p.width, DType::Bool).bytes, 8);
  EXPECT_EQ(vector_pieces(p.width, DType::F64).bytes, 16);
  EXPECT_EQ(vector_pieces(p.width, DType::F64).count, 4);
}

TEST(CudaVectorAccess, AnOperandConstantInTheInnermostLoopIsLoadedOncePerGroup) {
  const PointwiseVectors p = plan_of("%x: f32[64,256], %c: f64[64]", "f32[64,256] strides [256, 1]", {64, 256},
                                     "      %0 = load %x[256*i0 + i1]\n      %1 = load %c[i0]\n"
                                     "      %2 = cast %1 : f32\n      %3 = add %0, %2 : f32\n"
                                     "      store %out0[256*i0 + i1], %3\n");
  EXPECT_EQ(p.width, 4);  // the broadcast f64 does not count
  EXPECT_EQ(p.access[0], VectorAccess::Contiguous);
  EXPECT_EQ(p.access[1], VectorAccess::Broadcast);
  EXPECT_EQ(p.access[4], VectorAccess::Contiguous);
}

TEST(CudaVectorAccess, OneLoopRunsItsLastPointsOnTheScalarPath) {
  const PointwiseVectors p = plan_of("%x: f32[1030]", "f32[1030] strides [1]", {1030},
                                     "      %0 = load %x[i0]\n      store %out0[i0], %0\n");
  EXPECT_EQ(p.width, 4);
  EXPECT_EQ(p.groups, 257);
  EXPECT_EQ(p.tail, 2);
}

TEST(CudaVectorAccess, EachAccessThatForbidsVectorsSaysWhy) {
  const auto reason = [](const std::string& inputs, const std::vector<int64_t>& extents, const std::string& load) {
    const PointwiseVectors p = plan_of(inputs, "f32[" + std::to_string(extents[0] * extents.back()) + "] strides [1]",
                                       extents, "      %0 = load %x[" + load + "]\n      store %out0[" +
                                           (extents.size() == 1 ? "i0" : std::to_string(extents[1]) + "*i0 + i1") +
                                           "], %0\n");
    EXPECT_EQ(p.width, 1);
    return p.scalar_reason;
  };
  EXPECT_EQ(reason("%x: f32[64,64]", {64, 64}, "i0 + 64*i1"), "%x: stride 64 in the innermost loop");
  EXPECT_EQ(reason("%x: f32[16,72]", {16, 64}, "72*i0 + i1 + 1"),
            "%x: a group's first element 72*i0 + i1 + 1 is not a multiple of 4");
  EXPECT_EQ(reason("%x: f32[16,72]", {16, 64}, "70*i0 + i1"),
            "%x: a group's first element 70*i0 + i1 is not a multiple of 4");
  EXPECT_EQ(reason("%x: f32[8,40]", {8, 30}, "40*i0 + i1"), "innermost extent 30 not a multiple of 4");
  EXPECT_EQ(reason("%x: f32[64]", {64}, "mod(i0, 8)"), "%x: its index divides the innermost loop");
  EXPECT_EQ(reason("%x: f32[2]", {2}, "i0"), "fewer points than a vector");
}

}  // namespace
}  // namespace kiln::cuda
