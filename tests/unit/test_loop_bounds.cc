// The static bounds proof (lower/loop_bounds.h) for masked loads: a load happens only where
// its mask holds, so the proof narrows the loop variables to the ranges the mask's comparisons
// of `index` values with constants give, and ignores what it cannot read (staying sound); the
// loop-IR evaluator gives such a load its `else` value where the mask is false.
#include <gtest/gtest.h>

#include <string>

#include "lower/loop_bounds.h"
#include "lower/loop_eval.h"
#include "lower/loop_text.h"

namespace kiln {
namespace {

// A pad-like kernel over [6] reading %x: f32[4] at i0 - 1 under `mask_ops` (which define %m).
LoopProgram masked_program(const std::string& mask_ops) {
  const std::string text =
      "loops @f(%x: f32[4]) -> (%out0) {\n  buffer %out0 : f32[6] strides [1]\n  kernel @k0 pointwise {\n"
      "    for i0 in range(6) {\n      %i = index i0 - 1\n      %z = const 0 : i64\n      %n = const 4 : i64\n" +
      mask_ops + "      %v = load %x[i0 - 1] if %m else 2.5\n      store %out0[i0], %v\n    }\n  }\n}\n";
  auto p = parse_loops(text);
  EXPECT_TRUE(p) << p.error().to_string();
  return p ? *p : LoopProgram{};
}

TEST(LoopBounds, MaskedLoadInsideItsMaskIsProven) {
  const LoopProgram p = masked_program("      %a = ge %i, %z : bool\n      %b = lt %i, %n : bool\n"
                                       "      %m = logical_and %a, %b : bool\n");
  EXPECT_TRUE(check_loop_bounds(p));
  // The constant on the left reads the same: 0 <= i0 - 1 and 4 > i0 - 1.
  const LoopProgram q = masked_program("      %a = le %z, %i : bool\n      %b = gt %n, %i : bool\n"
                                       "      %m = logical_and %a, %b : bool\n");
  EXPECT_TRUE(check_loop_bounds(q));
  auto out = eval_loops(p, std::vector<Tensor>{Tensor::from_doubles({0, 1, 2, 3}, {4})});
  ASSERT_TRUE(out) << out.error().to_string();
  const std::vector<double> want = {2.5, 0, 1, 2, 3, 2.5};
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ((*out)[0].item_double(i), want[static_cast<size_t>(i)]) << i;
}

TEST(LoopBounds, MaskedLoadOutsideItsMaskIsRefused) {
  // Only the lower bound: i0 = 5 reads element 4 of 4.
  const LoopProgram p = masked_program("      %m = ge %i, %z : bool\n");
  Status s = check_loop_bounds(p);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().to_string().find("load %x[i0 - 1] is outside the buffer (indices 0 to 4, not all in [0, 4))"),
            std::string::npos)
      << s.error().to_string();
}

TEST(LoopBounds, ConditionsTheProofCannotReadAreIgnored) {
  // A mask of a comparison with a loaded value says nothing about the index: refused, soundly.
  const LoopProgram p = masked_program("      %w = load %x[0]\n      %h = const 0.5 : f32\n      %m = gt %w, %h : bool\n");
  EXPECT_FALSE(check_loop_bounds(p));
  // An or of ranges is not read either.
  const LoopProgram q = masked_program("      %a = ge %i, %z : bool\n      %b = lt %i, %n : bool\n"
                                       "      %m = logical_or %a, %b : bool\n");
  EXPECT_FALSE(check_loop_bounds(q));
}

TEST(LoopBounds, ConstantFalseMaskNeverLoads) {
  const LoopProgram p = masked_program("      %m = const 0 : bool\n");
  EXPECT_TRUE(check_loop_bounds(p));
  auto out = eval_loops(p, std::vector<Tensor>{Tensor::from_doubles({0, 1, 2, 3}, {4})});
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_EQ((*out)[0].item_double(3), 2.5);
}

}  // namespace
}  // namespace kiln
