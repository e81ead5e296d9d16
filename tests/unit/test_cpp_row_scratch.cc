// Row scratch (codegen/cpp/cpp_row_scratch.h): a fused kernel's later part loads what an
// earlier part computed in the same inner loop instead of computing it again, only for values
// worth it and only when nothing in between writes what the value reads.
#include <gtest/gtest.h>

#include <string>

#include "codegen/cpp/cpp_emitter.h"
#include "codegen/cpp/cpp_row_scratch.h"
#include "lower/loop_text.h"

namespace kiln::cpp {
namespace {

// A softmax row kernel: max, sum of exp(x - max), exp(x - max) / sum; `last` is the body of
// the final pointwise part before its store of %5, `middle` an optional part between.
std::string softmax_text(const std::string& last, const std::string& middle = "") {
  return "loops @sm(%x: f32[4,16], %y: f32[4,16]) -> (%out0) {\n"
         "  buffer %t0 : f32[4] strides [1]\n  buffer %t1 : f32[4] strides [1]\n"
         "  buffer %out0 : f32[4,16] strides [16,1]\n"
         "  kernel @k0 fused {\n    for i0 in range(4) {\n"
         "      part reduction {\n        for i1 in range(16) reduce {\n          %0 = load %x[16*i0 + i1]\n"
         "        }\n        %1 = reduce max %0 : f32\n        store %t0[i0], %1\n      }\n"
         "      part reduction {\n        for i1 in range(16) reduce {\n          %0 = load %x[16*i0 + i1]\n"
         "          %1 = load %t0[i0]\n          %2 = sub %0, %1 : f32\n          %3 = exp %2 : f32\n"
         "        }\n        %4 = reduce sum %3 : f32\n        store %t1[i0], %4\n      }\n" +
         middle + "      part pointwise {\n        for i1 in range(16) {\n" + last +
         "          store %out0[16*i0 + i1], %5\n        }\n      }\n    }\n  }\n}\n";
}

const char* const kExpOverSum =
    "          %0 = load %x[16*i0 + i1]\n          %1 = load %t0[i0]\n          %2 = sub %0, %1 : f32\n"
    "          %3 = exp %2 : f32\n          %4 = load %t1[i0]\n          %5 = div %3, %4 : f32\n";

LoopProgram parsed(const std::string& text) {
  auto p = parse_loops(text);
  EXPECT_TRUE(p) << p.error().to_string();
  return p ? *p : LoopProgram{};
}

TEST(RowScratch, TheSoftmaxDivisionReusesTheSummedExp) {
  const LoopProgram p = parsed(softmax_text(kExpOverSum));
  ASSERT_EQ(p.kernels.size(), 1u);
  const RowScratch s = plan_row_scratch(p.kernels[0], 1);
  ASSERT_EQ(s.arrays.size(), 1u);
  EXPECT_EQ(s.arrays[0].extent, 16);
  EXPECT_EQ(s.save[1].at(3), 0);   // the summing part stores exp (%3)
  EXPECT_EQ(s.reuse[2].at(3), 0);  // the dividing part loads it
  EXPECT_TRUE(s.save[0].empty() && s.reuse[0].empty() && s.reuse[1].empty());
  const std::string cpp = emit_cpp(p);
  EXPECT_NE(cpp.find("float rs0[16];"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("rs0[i1] = v3;"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("const float v3 = rs0[i1];"), std::string::npos) << cpp;
}

TEST(RowScratch, CheapValuesAreComputedAgain) {
  // x - max is recomputed: keeping it in memory costs as much as the subtraction.
  const LoopProgram p = parsed(
      softmax_text("          %0 = load %x[16*i0 + i1]\n          %1 = load %t0[i0]\n          %2 = sub %0, %1 : f32\n"
                   "          %3 = mul %2, %2 : f32\n          %4 = load %t1[i0]\n          %5 = mul %3, %4 : f32\n"));
  EXPECT_TRUE(plan_row_scratch(p.kernels[0], 1).empty());
}

TEST(RowScratch, AValueWhoseInputIsWrittenInBetweenIsComputedAgain) {
  // A part between the two writes %t0, which the exp reads: the later exp sees the new max.
  const std::string middle =
      "      part reduction {\n        for i1 in range(16) reduce {\n          %0 = load %y[16*i0 + i1]\n"
      "        }\n        %1 = reduce max %0 : f32\n        store %t0[i0], %1\n      }\n";
  const LoopProgram p = parsed(softmax_text(kExpOverSum, middle));
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_TRUE(plan_row_scratch(p.kernels[0], 1).empty());
}

}  // namespace
}  // namespace kiln::cpp
