// Contraction kernels and shape rules (mm, bmm, matmul, addmm, linear, baddbmm) on
// hand-computed cases; expected values from PyTorch 2 on CPU.
#include "kernel_test_util.h"

namespace kiln {
namespace {

using namespace test;

TEST(KernelsLinalg, MmValues) {
  Tensor a = F({1, 2, 3, 4, 5, 6}, {2, 3}), b = F({1, 0, 0, 1, 1, 1}, {3, 2});
  expect_close(run1(OpKind::Mm, {T(a), T(b)}), F({4, 5, 10, 11}, {2, 2}));
}

TEST(KernelsLinalg, MmDtypeMismatchLikeTorch) {
  Tensor a = F({1, 2}, {1, 2}), b = F({1, 2}, {2, 1}, DType::F64);
  EXPECT_EQ(run_error(OpKind::Mm, {T(a), T(b)}), "mm: expected m1 and m2 to have the same dtype, but got: f32 != f64");
  EXPECT_NE(run_error(OpKind::Mm, {T(a), T(a)}).find("cannot be multiplied (1x2 and 1x2)"), std::string::npos);
}

TEST(KernelsLinalg, MatmulOneDimCases) {
  Tensor v = F({1, 2, 3}), m = arange_f({3, 2});
  expect_close(run1(OpKind::Matmul, {T(v), T(v)}), F({14}, {1}).as_strided({}, {}, 0));
  expect_close(run1(OpKind::Matmul, {T(v), T(m)}), F({16, 22}));
  Tensor mt = arange_f({2, 3});
  expect_close(run1(OpKind::Matmul, {T(mt), T(v)}), F({8, 26}));
  EXPECT_NE(run_error(OpKind::Matmul, {T(F({1}, {1}).as_strided({}, {}, 0)), T(v)}).find("at least 1D"),
            std::string::npos);
}

TEST(KernelsLinalg, MatmulBatchBroadcast) {
  Tensor a = arange_f({2, 1, 2, 3}), b = arange_f({4, 3, 2});
  Tensor r = run1(OpKind::Matmul, {T(a), T(b)});
  ASSERT_EQ(r.sizes(), (std::vector<int64_t>{2, 4, 2, 2}));
  // r[1, 3] = a[1, 0] @ b[3]: rows [6,7,8], [9,10,11]; b[3] = [[18,19],[20,21],[22,23]].
  EXPECT_DOUBLE_EQ(r.item_double(((1 * 4 + 3) * 2 + 0) * 2 + 0), 6 * 18 + 7 * 20 + 8 * 22);
  EXPECT_DOUBLE_EQ(r.item_double(((1 * 4 + 3) * 2 + 1) * 2 + 1), 9 * 19 + 10 * 21 + 11 * 23);
  // A 1-D operand against a batch: [3] @ [4,3,2] -> [4,2].
  EXPECT_EQ(run1(OpKind::Matmul, {T(F({1, 1, 1})), T(b)}).sizes(), (std::vector<int64_t>{4, 2}));
}

TEST(KernelsLinalg, MatmulIntegersWrap) {
  Tensor a = I({INT64_MAX, 1}, {1, 2}), b = I({2, 1}, {2, 1});
  // INT64_MAX * 2 + 1 wraps to -1, as torch's int64 arithmetic does.
  EXPECT_EQ(run1(OpKind::Matmul, {T(a), T(b)}).item_int(0), -1);
}

TEST(KernelsLinalg, MatmulNonContiguousOperand) {
  Tensor a = arange_f({3, 2});
  Tensor at = a.as_strided({2, 3}, {1, 2}, 0);  // a.t()
  expect_close(run1(OpKind::Mm, {T(at), T(F({1, 1, 1}, {3, 1}))}), F({6, 9}, {2, 1}));
}

TEST(KernelsLinalg, AddmmBaddbmmLinear) {
  Tensor self = F({1, 2}), a = F({1, 2, 3, 4}, {2, 2}), eye = F({1, 0, 0, 1}, {2, 2});
  expect_close(run1(OpKind::Addmm, {T(self), T(a), T(eye)}, {{"beta", 2.0}, {"alpha", 0.5}}),
               F({2.5, 5, 3.5, 6}, {2, 2}));
  // beta = 0 ignores NaN in self.
  Tensor nan_self = F({NAN, NAN});
  expect_close(run1(OpKind::Addmm, {T(nan_self), T(a), T(eye)}, {{"beta", 0.0}}), a);
  Tensor b3 = arange_f({2, 2, 2});
  Tensor r = run1(OpKind::Baddbmm, {T(F({10})), T(b3), T(b3)}, {{"alpha", 1}, {"beta", 1}});
  EXPECT_DOUBLE_EQ(r.item_double(7), 10 + 6 * 5 + 7 * 7);
  Tensor x = F({1, 2, 3, 4, 5, 6}, {2, 3}), w = F({1, 0, 0, 0, 1, 1}, {2, 3}), bias = F({100, 200});
  expect_close(run1(OpKind::Linear, {T(x), T(w), T(bias)}), F({101, 205, 104, 211}, {2, 2}));
  expect_close(run1(OpKind::Linear, {T(x), T(w), None()}), F({1, 5, 4, 11}, {2, 2}));
}

TEST(TypeRulesLinalg, SymbolicBatchDimsPassThrough) {
  auto r = types_of(OpKind::Matmul, {{DType::F32, sym({"B", "T", "16"})}, {DType::F32, sym({"16", "32"})}});
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ((*r)[0].shape.to_string(), "[B,T,32]");
  auto bad = types_of(OpKind::Bmm, {{DType::F32, sym({"B", "2", "3"})}, {DType::F32, sym({"B", "4", "5"})}});
  ASSERT_FALSE(bad.has_value());
  auto lin = types_of(OpKind::Linear, {{DType::F32, sym({"B", "16"})}, {DType::F32, sym({"8", "16"})}});
  ASSERT_TRUE(lin.has_value());
  EXPECT_EQ((*lin)[0].shape.to_string(), "[B,8]");
}

}  // namespace
}  // namespace kiln
