// The CPU runtime's oneDNN matmuls against the reference kernel (run_op): the layouts the
// compiled programs give them (linear layers, attention's per-head views, broadcast batches),
// linear's bias, a primitive made once per layout, and the cases left to OpenBLAS.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/tensor.h"
#include "kernel_test_util.h"
#include "ops/op_call.h"
#include "runtime/cpu/blas_matmul.h"
#include "runtime/cpu/dnnl_matmul.h"

namespace kiln {
namespace {

using test::run1;
using test::T;

// oneDNN has brgemm matmuls from AVX-512 on; elsewhere every layout is declined.
bool has_brgemm_isa() { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"); }

// Runs op(a, b) through `m`; when it is taken, the result must match the reference. Returns
// whether it was taken.
bool run_and_compare(DnnlMatmuls& m, OpKind op, const Tensor& a, const Tensor& b) {
  const Tensor want = run1(op, {T(a), T(b)});
  Tensor got = Tensor::full(want.sizes(), Scalar(123.0), want.dtype());
  if (!m.run(op, a, b, got)) {
    for (int64_t i = 0; i < got.numel(); ++i)
      EXPECT_EQ(got.item_double(i), 123.0) << "a declined call wrote element " << i;
    return false;
  }
  for (int64_t i = 0; i < want.numel(); ++i)
    EXPECT_NEAR(got.item_double(i), want.item_double(i), 1e-4 * (1 + std::fabs(want.item_double(i))))
        << "element " << i;
  return true;
}

TEST(DnnlMatmul, LayoutsMatchTheReference) {
  if (!has_brgemm_isa()) GTEST_SKIP() << "no AVX-512 on this CPU: oneDNN has no brgemm matmul, OpenBLAS runs them";
  DnnlMatmuls m;
  const Tensor a = Tensor::randn({33, 70}, 1), b = Tensor::randn({70, 45}, 2);
  EXPECT_TRUE(run_and_compare(m, OpKind::Mm, a, b));
  // A linear layer: x [2, 24, 70] @ w.T with w a row-major [45, 70]: one product over 48 rows.
  const Tensor w = Tensor::randn({45, 70}, 3);
  EXPECT_TRUE(run_and_compare(m, OpKind::Matmul, Tensor::randn({2, 24, 70}, 4), w.as_strided({70, 45}, {1, 70}, 0)));
  // A weight gradient: the transpose of a [70, 33] row-major tensor on the left.
  EXPECT_TRUE(run_and_compare(m, OpKind::Mm, Tensor::randn({70, 33}, 5).as_strided({33, 70}, {1, 33}, 0), b));
  // Attention's heads: q [B, H, T, D] viewed out of a [B, T, H*D] projection (head stride D,
  // row stride H*D) times k's transpose, and a broadcast batch dim on the right.
  const Tensor proj = Tensor::randn({2, 16, 4 * 8}, 6);
  const Tensor q = proj.as_strided({2, 4, 16, 8}, {16 * 32, 8, 32, 1}, 0);
  const Tensor kt = Tensor::randn({2, 4, 16, 8}, 7).as_strided({2, 4, 8, 16}, {512, 128, 1, 8}, 0);
  EXPECT_TRUE(run_and_compare(m, OpKind::Matmul, q, kt));
  EXPECT_TRUE(run_and_compare(m, OpKind::Matmul, Tensor::randn({3, 2, 5, 7}, 8), Tensor::randn({1, 2, 7, 4}, 9)));
  EXPECT_TRUE(run_and_compare(m, OpKind::Bmm, Tensor::randn({3, 5, 7}, 10), Tensor::randn({3, 7, 4}, 11)));
  EXPECT_EQ(m.declined(), 0);
}

// linear(x, w, b) as the compiled program runs it: x @ w.T with the bias added as the product
// is written (oneDNN's bias argument), and through OpenBLAS (blas_linear) when declined.
TEST(DnnlMatmul, LinearWithBiasMatchesTheReference) {
  const Tensor x = Tensor::randn({2, 24, 70}, 1), w = Tensor::randn({45, 70}, 2), bias = Tensor::randn({45}, 3);
  const Tensor want = run1(OpKind::Linear, {T(x), T(w), T(bias)});
  auto expect_near = [&](const Tensor& got, const char* what) {
    SCOPED_TRACE(what);
    for (int64_t i = 0; i < got.numel(); ++i)
      ASSERT_NEAR(got.item_double(i), want.item_double(i), 1e-4 * (1 + std::fabs(want.item_double(i))))
          << "element " << i;
  };
  Tensor via_blas = Tensor::zeros({2, 24, 45});
  ASSERT_TRUE(blas_linear(x, w, &bias, via_blas));
  expect_near(via_blas, "blas");
  // A strided bias (every other element of a longer vector) too.
  Tensor spread = Tensor::zeros({90}).as_strided({45}, {2}, 0);
  spread.copy_from(bias);
  Tensor via_blas_strided = Tensor::zeros({2, 24, 45});
  ASSERT_TRUE(blas_linear(x, w, &spread, via_blas_strided));
  expect_near(via_blas_strided, "blas, strided bias");
  if (!has_brgemm_isa()) GTEST_SKIP() << "no AVX-512 on this CPU: oneDNN has no brgemm matmul, OpenBLAS runs them";
  DnnlMatmuls m;
  Tensor via_dnnl = Tensor::zeros({2, 24, 45});
  ASSERT_TRUE(m.run(OpKind::Matmul, x, transposed_weight(w), via_dnnl, &bias));
  expect_near(via_dnnl, "oneDNN");
  // A strided bias (oneDNN 2.6 read it as dense) and one of the wrong length are declined.
  Tensor untouched = Tensor::zeros({2, 24, 45});
  EXPECT_FALSE(m.run(OpKind::Matmul, x, transposed_weight(w), untouched, &spread));
  EXPECT_FALSE(m.run(OpKind::Matmul, x, transposed_weight(w), untouched, &x));
  for (int64_t i = 0; i < untouched.numel(); ++i) ASSERT_EQ(untouched.item_double(i), 0.0);
}

TEST(DnnlMatmul, APrimitiveIsMadeOncePerLayout) {
  if (!has_brgemm_isa()) GTEST_SKIP() << "no AVX-512 on this CPU: oneDNN has no brgemm matmul, OpenBLAS runs them";
  DnnlMatmuls m;
  EXPECT_TRUE(run_and_compare(m, OpKind::Mm, Tensor::randn({16, 8}, 1), Tensor::randn({8, 4}, 2)));
  EXPECT_TRUE(run_and_compare(m, OpKind::Mm, Tensor::randn({16, 8}, 3), Tensor::randn({8, 4}, 4)));
  EXPECT_EQ(m.primitives(), 1);
  EXPECT_TRUE(run_and_compare(m, OpKind::Mm, Tensor::randn({16, 8}, 5),
                              Tensor::randn({4, 8}, 6).as_strided({8, 4}, {1, 8}, 0)));
  EXPECT_EQ(m.primitives(), 2);
}

TEST(DnnlMatmul, LeavesOtherCasesToOpenBlasOrTheReference) {
  DnnlMatmuls m;
  // float64 and integers: oneDNN's matmul has no f64 kernel.
  EXPECT_FALSE(
      run_and_compare(m, OpKind::Mm, Tensor::randn({4, 3}, 1, DType::F64), Tensor::randn({3, 2}, 2, DType::F64)));
  EXPECT_FALSE(run_and_compare(m, OpKind::Mm, Tensor::randint(0, 4, {2, 3}, 1, DType::I64),
                               Tensor::randint(0, 4, {3, 2}, 2, DType::I64)));
  // A uniform operand (the expanded tangent of a sum loss): blas_matmul needs no product.
  const Tensor half = Tensor::full({1}, 0.5).as_strided({2, 3, 4}, {0, 0, 0}, 0);
  EXPECT_FALSE(run_and_compare(m, OpKind::Matmul, half, Tensor::randn({4, 5}, 5)));
  // A 1-d operand, and an op that is not a product.
  EXPECT_FALSE(m.run(OpKind::Matmul, Tensor::randn({3}, 1), Tensor::randn({3, 2}, 2), Tensor::zeros({2})));
  EXPECT_FALSE(m.run(OpKind::Add, Tensor::randn({2, 2}, 5), Tensor::randn({2, 2}, 6), Tensor::zeros({2, 2})));
  EXPECT_EQ(m.primitives(), 0);
}

}  // namespace
}  // namespace kiln
