// Wide accesses in pointwise CUDA kernels (codegen/cuda/cuda_vector_access.h): the width from
// the narrowest and widest accesses, contiguous and broadcast operands, a one-loop kernel's
// tail, and each reason a kernel keeps the scalar path.
#include <gtest/gtest.h>

#include <string>

#include "codegen/cuda/cuda_vector_access.h"
#include "core/dtype.h"
#include "lower/loop_text.h"

namespace kiln::cuda {
namespace {

// out0[<store>] = <loads> over loops `extents` ("range(4) ... range(8)"): `body` the loads,
// `inputs` the graph's parameters.
PointwiseVectors plan_of(const std::string& inputs, const std::string& out, const std::vector<int64_t>& extents,
                         const std::string& body) {
  std::string loops, close;
  for (size_t d = 0; d < extents.size(); ++d) {
    loops +=
        std::string(2 * d + 4, ' ') + "for i" + std::to_string(d) + " in range(" + std::to_string(extents[d]) + ") {\n";
    close = std::string(2 * d + 4, ' ') + "}\n" + close;
  }
  auto p = parse_loops("loops @f(" + inputs + ") -> (%out0) {\n  buffer %out0 : " + out +
                       "\n  kernel @k0 pointwise {\n" + loops + body + close + "  }\n}\n");
  EXPECT_TRUE(p) << p.error().to_string();
  return p ? pointwise_vectors(*p, p->kernels[0]) : PointwiseVectors{};
}

// out0[i0] = x[i0] cast from dtype `in` to `out`, over 1024 points.
PointwiseVectors cast_plan(const std::string& in, const std::string& out) {
  return plan_of("%x: " + in + "[1024]", out + "[1024] strides [1]", {1024},
                 "      %0 = load %x[i0]\n      %1 = cast %0 : " + out + "\n      store %out0[i0], %1\n");
}

// out0[i0] = x[i0] over `n` points of dtype `t`.
PointwiseVectors copy_plan(const std::string& t, int64_t n) {
  const std::string shape = t + "[" + std::to_string(n) + "]";
  return plan_of("%x: " + shape, shape + " strides [1]", {n}, "      %0 = load %x[i0]\n      store %out0[i0], %0\n");
}

TEST(CudaVectorAccess, TheNarrowestAccessMoves16Bytes) {
  const PointwiseVectors bf16 = copy_plan("bf16", 1024);
  EXPECT_EQ(bf16.width, 8);
  EXPECT_EQ(bf16.groups, 128);
  EXPECT_EQ(bf16.tail, 0);
  EXPECT_EQ(bf16.access, (std::vector<VectorAccess>{VectorAccess::Contiguous, VectorAccess::Contiguous}));
  EXPECT_EQ(cast_plan("f32", "bf16").width, 8);  // the f32 in two 16-byte pieces
  EXPECT_EQ(cast_plan("f32", "f64").width, 4);
}

TEST(CudaVectorAccess, TheWidestAccessMovesAtMost64Bytes) {
  // bool would take 16 points; f64 moves 8 x 8 bytes at most, so 8, the bools in 8 bytes.
  EXPECT_EQ(cast_plan("f64", "bool").width, 8);
  EXPECT_EQ(cast_plan("f32", "bool").width, 16);
}

TEST(CudaVectorAccess, AVectorMovesInPiecesOfAtMost16Bytes) {
  struct Case {
    int width;
    DType t;
    int bytes, count;
  };
  for (const Case& c : {Case{8, DType::BF16, 16, 1}, Case{8, DType::F32, 16, 2}, Case{8, DType::F64, 16, 4},
                        Case{8, DType::Bool, 8, 1}, Case{2, DType::Bool, 2, 1}}) {
    EXPECT_EQ(vector_pieces(c.width, c.t).bytes, c.bytes) << c.width << " x " << dtype_name(c.t);
    EXPECT_EQ(vector_pieces(c.width, c.t).count, c.count) << c.width << " x " << dtype_name(c.t);
  }
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
  const PointwiseVectors p = copy_plan("f32", 1030);
  EXPECT_EQ(p.width, 4);
  EXPECT_EQ(p.groups, 257);
  EXPECT_EQ(p.tail, 2);
}

TEST(CudaVectorAccess, EachAccessThatForbidsVectorsSaysWhy) {
  const auto reason = [](const std::string& inputs, const std::vector<int64_t>& extents, const std::string& load) {
    const PointwiseVectors p =
        plan_of(inputs, "f32[" + std::to_string(extents[0] * extents.back()) + "] strides [1]", extents,
                "      %0 = load %x[" + load + "]\n      store %out0[" +
                    (extents.size() == 1 ? "i0" : std::to_string(extents[1]) + "*i0 + i1") + "], %0\n");
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
