// A fused part's row walked in memory with vectors from each row's first aligned element
// (codegen/cuda/cuda_row_vectors.h): which accesses the walk takes as vectors, and the head,
// groups and tail the emitter writes for a row that starts at any element.
#include <gtest/gtest.h>

#include <string>

#include "codegen/cuda/cuda_emitter.h"
#include "codegen/cuda/cuda_row_vectors.h"
#include "loop_text_util.h"

namespace kiln::cuda {
namespace {

// out0 = x - max(x) over 264 rows of 50257 f32, too long to hold: the row stays in memory.
// `out_at`: where the pointwise part stores its point.
LoopProgram max_shift(const std::string& out_at = "50257*i0 + i1") {
  return test::parse_loop_program(
      "loops @m(%x: f32[264,50257]) -> (%out0) {\n  buffer %t0 : f32[264] strides [1]\n"
      "  buffer %out0 : f32[264,50258] strides [50258, 1]\n  kernel @k0 fused {\n    for i0 in range(264) {\n"
      "      part reduction {\n        for i1 in range(50257) reduce {\n          %0 = load %x[50257*i0 + i1]\n"
      "        }\n        %1 = reduce max %0 : f32\n        store %t0[i0], %1\n      }\n      part pointwise {\n"
      "        for i1 in range(50257) {\n          %0 = load %x[50257*i0 + i1]\n          %1 = load %t0[i0]\n"
      "          %2 = sub %0, %1 : f32\n          store %out0[" +
      out_at + "], %2\n        }\n      }\n    }\n  }\n}\n");
}

TEST(CudaRowVectors, AccessesStartingEachRowAtOneElementGoAsVectors) {
  const LoopProgram p = max_shift();
  const LoopKernel& k = p.kernels.at(0);
  const RowVectors fold = row_vectors(p, k.parts.at(0), 1);
  EXPECT_EQ(fold.width, 4);  // 16 bytes of f32
  EXPECT_EQ(fold.row_start.to_string(), IndexExpr::var(0).scaled(50257).to_string());
  const RowVectors shift = row_vectors(p, k.parts.at(1), 1);
  ASSERT_EQ(shift.width, 4);
  EXPECT_EQ(shift.access.at(0), VectorAccess::Contiguous);  // x
  EXPECT_EQ(shift.access.at(1), VectorAccess::None);        // the row's max: one element
  EXPECT_EQ(shift.access.at(3), VectorAccess::Contiguous);  // out0, at x's element
}

TEST(CudaRowVectors, AStoreStartingRowsElsewhereStaysScalarAtTheLanesPoint) {
  const LoopProgram p = max_shift("50258*i0 + i1");  // another alignment than x's rows
  const RowVectors shift = row_vectors(p, p.kernels.at(0).parts.at(1), 1);
  EXPECT_EQ(shift.access.at(0), VectorAccess::Contiguous);
  EXPECT_EQ(shift.access.at(3), VectorAccess::None);
  const std::string text = emit_cuda_program(p).kernel_text.at(0);
  EXPECT_TRUE(test::has_text(text, "const int head = (4 - first % 4) % 4;")) << text;
  EXPECT_TRUE(test::has_text(text, "l0.v[0] = ((const kiln_v16*)(b0_x + 50257 * i0 + i2))[0];")) << text;
  EXPECT_TRUE(test::has_text(text, "const int i1 = i2 + j;")) << text;  // the scalar store's point
  EXPECT_TRUE(test::has_text(text, "b2_out0[50258 * i0 + i1] = v2;")) << text;
}

}  // namespace
}  // namespace kiln::cuda
