// The CPU runtime's OpenBLAS matmuls against the reference kernel (run_op), and the layouts
// and dtypes they must leave to it.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/tensor.h"
#include "kernel_test_util.h"
#include "ops/op_call.h"
#include "runtime/cpu/blas_matmul.h"

namespace kiln {
namespace {

using test::run1;
using test::T;

void expect_blas_matches(OpKind op, const Tensor& a, const Tensor& b, double tol) {
  const Tensor want = run1(op, {T(a), T(b)});
  Tensor got = Tensor::zeros(want.sizes(), want.dtype());
  ASSERT_TRUE(blas_matmul(op, a, b, got));
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_NEAR(got.item_double(i), want.item_double(i), tol * (1 + std::fabs(want.item_double(i)))) << "element " << i;
}

TEST(BlasMatmul, LayoutsMatchTheReference) {
  const Tensor a = Tensor::randn({5, 7}, 1), b = Tensor::randn({7, 3}, 2);
  expect_blas_matches(OpKind::Mm, a, b, 1e-5);
  // b as the transpose of a row-major [3,7] (a linear layer's weight).
  const Tensor w = Tensor::randn({3, 7}, 3);
  expect_blas_matches(OpKind::Matmul, a, w.as_strided({7, 3}, {1, 7}, 0), 1e-5);
  // a batch of rows times one matrix: one GEMM over all rows.
  const Tensor x = Tensor::randn({2, 4, 7}, 4);
  expect_blas_matches(OpKind::Matmul, x, w.as_strided({7, 3}, {1, 7}, 0), 1e-5);
  // batched with a broadcast batch dim and a transposed, offset left operand.
  const Tensor big = Tensor::randn({2, 7, 6}, 5);
  const Tensor lhs = big.as_strided({2, 5, 7}, {42, 1, 6}, 1);
  const Tensor rhs = Tensor::randn({1, 7, 4}, 6);
  expect_blas_matches(OpKind::Matmul, lhs, rhs, 1e-5);
  expect_blas_matches(OpKind::Bmm, Tensor::randn({3, 2, 5}, 7, DType::F64), Tensor::randn({3, 5, 4}, 8, DType::F64),
                      1e-12);
}

TEST(BlasMatmul, CopiesOperandsInOtherLayouts) {
  // Neither dim of the left operand has unit stride.
  const Tensor spread = Tensor::randn({12}, 3).as_strided({2, 3}, {6, 2}, 0);
  expect_blas_matches(OpKind::Mm, spread, Tensor::randn({3, 2}, 4), 1e-5);
}

TEST(BlasMatmul, UniformOperandsAreRowAndColumnSums) {
  // All strides 0, as autograd's expand of a scalar tangent gives: left, right, batched
  // against a broadcast or transposed other operand, f32 and f64.
  const Tensor half = Tensor::full({1}, 0.5).as_strided({2, 3, 4}, {0, 0, 0}, 0);
  expect_blas_matches(OpKind::Matmul, half, Tensor::randn({4, 5}, 5), 1e-5);
  expect_blas_matches(OpKind::Matmul, half, Tensor::randn({2, 4, 5}, 6).as_strided({2, 4, 5}, {20, 1, 4}, 0), 1e-5);
  const Tensor three = Tensor::full({1}, 3.0, DType::F64).as_strided({4, 6}, {0, 0}, 0);
  expect_blas_matches(OpKind::Mm, Tensor::randn({5, 4}, 7, DType::F64), three, 1e-12);
  expect_blas_matches(OpKind::Bmm, Tensor::randn({2, 3, 4}, 8).as_strided({2, 3, 4}, {12, 1, 3}, 0),
                      Tensor::full({1}, -2.0).as_strided({2, 4, 3}, {0, 0, 0}, 0), 1e-5);
  // Large enough for the threaded paths: sums of one unbatched operand split by column blocks
  // (700 columns: a partial last block), sums per batch of a batched one, row sums.
  const Tensor quarter = Tensor::full({1}, 0.25).as_strided({2, 300, 400}, {0, 0, 0}, 0);
  expect_blas_matches(OpKind::Matmul, quarter, Tensor::randn({400, 700}, 9), 1e-5);
  expect_blas_matches(OpKind::Bmm, Tensor::full({1}, 1.5).as_strided({3, 200, 300}, {0, 0, 0}, 0),
                      Tensor::randn({3, 300, 200}, 10), 1e-5);
  expect_blas_matches(OpKind::Mm, Tensor::randn({500, 400}, 11),
                      Tensor::full({1}, 2.0).as_strided({400, 300}, {0, 0}, 0), 1e-5);
}

TEST(BlasMatmul, LeavesOtherCasesToTheReference) {
  const Tensor out = Tensor::zeros({2, 2});
  EXPECT_FALSE(blas_matmul(OpKind::Mm, Tensor::randint(0, 4, {2, 3}, 1, DType::I64),
                           Tensor::randint(0, 4, {3, 2}, 2, DType::I64), Tensor::zeros({2, 2}, DType::I64)));
  EXPECT_FALSE(blas_matmul(OpKind::Matmul, Tensor::randn({3}, 1), Tensor::randn({3, 2}, 2), Tensor::zeros({2})));
  EXPECT_FALSE(blas_matmul(OpKind::Add, Tensor::randn({2, 2}, 5), Tensor::randn({2, 2}, 6), out));
}

}  // namespace
}  // namespace kiln
