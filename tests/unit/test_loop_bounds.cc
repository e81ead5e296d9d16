// The static bounds proof (lower/loop_bounds.h) for masked and indirect loads: a load happens
// only where its mask holds, so the proof narrows the loop variables to the ranges the mask's
// comparisons of `index` values with constants give, and ignores what it cannot read (staying
// sound); an indirect term ranges over [0, size) of its checked index. The loop-IR evaluator
// gives a masked load its `else` value where the mask is false, and reports a failed check.
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
  const LoopProgram p = masked_program(
      "      %a = ge %i, %z : bool\n      %b = lt %i, %n : bool\n"
      "      %m = logical_and %a, %b : bool\n");
  EXPECT_TRUE(check_loop_bounds(p));
  // The constant on the left reads the same: 0 <= i0 - 1 and 4 > i0 - 1.
  const LoopProgram q = masked_program(
      "      %a = le %z, %i : bool\n      %b = gt %n, %i : bool\n"
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
  const LoopProgram p =
      masked_program("      %w = load %x[0]\n      %h = const 0.5 : f32\n      %m = gt %w, %h : bool\n");
  EXPECT_FALSE(check_loop_bounds(p));
  // An or of ranges is not read either.
  const LoopProgram q = masked_program(
      "      %a = ge %i, %z : bool\n      %b = lt %i, %n : bool\n"
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

// A gather over [3] reading %x: f32[2,5] at row `row` and column %v, checked below `size`.
LoopProgram gather_program(const std::string& row, int64_t size, const std::string& wrap = "") {
  const std::string text =
      "loops @f(%x: f32[2,5], %i: i64[3]) -> (%out0) {\n  buffer %out0 : f32[3] strides [1]\n  kernel @k0 pointwise {\n"
      "    for i0 in range(3) {\n      %0 = load %i[i0]\n      %1 = indirect %0, size " +
      std::to_string(size) + wrap +
      ", gather dim 1 at \"%2 = gather(%x, %i) {dim=1} : f32[3]\"\n      %2 = load %x[%1 + " + row +
      "]\n      store %out0[i0], %2\n    }\n  }\n}\n";
  auto p = parse_loops(text);
  EXPECT_TRUE(p) << p.error().to_string();
  return p ? *p : LoopProgram{};
}

TEST(LoopBounds, IndirectTermRangesOverItsCheckedSize) {
  EXPECT_TRUE(check_loop_bounds(gather_program("5", 5)));  // row 1: elements 5..9 of 10
  Status past = check_loop_bounds(gather_program("5", 6));
  ASSERT_FALSE(past);
  EXPECT_NE(past.error().to_string().find("load %x[5 + 1*(an indirect index)] is outside the buffer (indices 5 to 10"),
            std::string::npos)
      << past.error().to_string();
  Status empty = check_loop_bounds(gather_program("0", 0));
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().to_string().find("an indirect index into an empty dim is never in range"), std::string::npos)
      << empty.error().to_string();
}

TEST(LoopBounds, IndirectChecksWrapOrFailAsTheReferenceKernel) {
  const Tensor x = Tensor::from_doubles({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {2, 5});
  // Without wrap a negative index is an error naming the op, the value, the dim and its size.
  auto bad = eval_loops(gather_program("5", 5), std::vector<Tensor>{x, Tensor::from_ints({4, -1, 0}, {3})});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().to_string().find(
                "gather: index -1 is out of bounds for dim 1 with size 5\n"
                "  while computing %2 = gather(%x, %i) {dim=1} : f32[3]\n  in kernel @k0 of loops @f"),
            std::string::npos)
      << bad.error().to_string();
  // With wrap, -5..-1 count from the back; -6 is an error.
  auto ok = eval_loops(gather_program("5", 5, ", wrap"), std::vector<Tensor>{x, Tensor::from_ints({4, -1, -5}, {3})});
  ASSERT_TRUE(ok) << ok.error().to_string();
  EXPECT_EQ((*ok)[0].item_double(0), 9);
  EXPECT_EQ((*ok)[0].item_double(1), 9);
  EXPECT_EQ((*ok)[0].item_double(2), 5);
  EXPECT_FALSE(
      eval_loops(gather_program("5", 5, ", wrap"), std::vector<Tensor>{x, Tensor::from_ints({-6, 0, 0}, {3})}));
}

// The compiled runtime's path after a kernel reports a bad index: the same error, the first
// bad index in loop order, found without storing anything.
TEST(LoopBounds, KernelChecksAreFoundAgainOverGivenBuffers) {
  const LoopProgram p = gather_program("0", 5);
  std::vector<Tensor> storage = {Tensor::zeros({10}), Tensor::from_ints({2, 7, 9}, {3}),
                                 Tensor::full({3}, Scalar(1.5))};
  Status s = eval_kernel_checks(p, p.kernels[0], storage);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().to_string().find("gather: index 7 is out of bounds for dim 1 with size 5"), std::string::npos)
      << s.error().to_string();
  EXPECT_EQ(storage[2].item_double(0), 1.5);  // nothing stored
  storage[1] = Tensor::from_ints({2, 3, 4}, {3});
  Status none = eval_kernel_checks(p, p.kernels[0], storage);
  ASSERT_FALSE(none);
  EXPECT_NE(
      none.error().to_string().find("reported an index out of bounds, but evaluating its checks again finds none"),
      std::string::npos);
}

}  // namespace
}  // namespace kiln
