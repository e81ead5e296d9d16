// The blocked floating matmul kernel (ops/kernels_linalg.cc) against the textbook loop it
// replaces: for every output element, a double accumulator summing a[i,p] * b[p,j] for
// p = 0..k-1 in ascending order, rounded once to the output dtype. Results must agree bit
// for bit, on strided, transposed and batch-broadcast operands, across the kernel's blocks.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/element.h"
#include "kernel_test_util.h"

namespace kiln {
namespace {

using namespace test;

// Operand t's element at [batch..., row, col] where batch dims of size 1 broadcast.
double element(const Tensor& t, const std::vector<int64_t>& batch, int64_t row, int64_t col) {
  const int r = t.dim();
  int64_t off = row * t.strides()[static_cast<size_t>(r - 2)] + col * t.strides()[static_cast<size_t>(r - 1)];
  const size_t lead = batch.size() - static_cast<size_t>(r - 2);
  for (size_t d = 0; d + 2 < static_cast<size_t>(r); ++d)
    if (t.sizes()[d] != 1) off += batch[lead + d] * t.strides()[d];
  return load_double(t.data_bytes(), t.dtype(), off);
}

// The textbook product of a [..., n, k] and b [..., k, m] (ranks >= 2) with broadcast batches.
Tensor naive_matmul(const Tensor& a, const Tensor& b) {
  const int ra = a.dim(), rb = b.dim(), rank = std::max(ra, rb);
  std::vector<int64_t> batch(static_cast<size_t>(rank - 2), 1);
  for (int d = 0; d < rank - 2; ++d) {
    const int da = d - (rank - ra), db = d - (rank - rb);
    if (da >= 0)
      batch[static_cast<size_t>(d)] = std::max(batch[static_cast<size_t>(d)], a.sizes()[static_cast<size_t>(da)]);
    if (db >= 0)
      batch[static_cast<size_t>(d)] = std::max(batch[static_cast<size_t>(d)], b.sizes()[static_cast<size_t>(db)]);
  }
  const int64_t n = a.sizes()[static_cast<size_t>(ra - 2)], k = a.sizes()[static_cast<size_t>(ra - 1)];
  const int64_t m = b.sizes()[static_cast<size_t>(rb - 1)];
  std::vector<double> values;
  std::vector<int64_t> idx(batch.size(), 0);
  int64_t batches = 1;
  for (int64_t s : batch) batches *= s;
  for (int64_t flat = 0; flat < batches; ++flat) {
    int64_t rest = flat;
    for (size_t d = batch.size(); d-- > 0;) {
      idx[d] = rest % batch[d];
      rest /= batch[d];
    }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) acc += element(a, idx, i, p) * element(b, idx, p, j);
        values.push_back(acc);
      }
  }
  std::vector<int64_t> sizes = batch;
  sizes.push_back(n);
  sizes.push_back(m);
  return Tensor::from_doubles(values, sizes, a.dtype());
}

void expect_bit_identical(const Tensor& got, const Tensor& want) {
  ASSERT_TRUE(got.defined());
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.sizes(), want.sizes());
  const Tensor g = got.contiguous(), w = want.contiguous();
  const size_t bytes = static_cast<size_t>(g.numel()) * static_cast<size_t>(dtype_size(g.dtype()));
  EXPECT_EQ(std::memcmp(g.data_bytes(), w.data_bytes(), bytes), 0) << "matmul differs from the textbook loop";
}

// [rows, cols] as the transpose of a contiguous [cols, rows] tensor.
Tensor transposed(int64_t rows, int64_t cols, uint64_t seed, DType t) {
  return Tensor::randn({cols, rows}, seed, t).as_strided({rows, cols}, {1, rows}, 0);
}

TEST(MatmulBitExact, ContiguousF32AcrossColumnAndDepthBlocks) {
  // k = 300 crosses the 256-deep panels; m = 150 is one full 128-column block and a remainder.
  Tensor a = Tensor::randn({7, 300}, 1), b = Tensor::randn({300, 150}, 2);
  expect_bit_identical(run1(OpKind::Mm, {T(a), T(b)}), naive_matmul(a, b));
}

TEST(MatmulBitExact, TransposedF64Operands) {
  Tensor a = transposed(9, 270, 3, DType::F64), b = transposed(270, 131, 4, DType::F64);
  expect_bit_identical(run1(OpKind::Matmul, {T(a), T(b)}), naive_matmul(a, b));
}

TEST(MatmulBitExact, BroadcastBatchF16WithStridedColumns) {
  Tensor a = Tensor::randn({3, 1, 5, 260}, 5, DType::F16);
  // Every other column of a [4, 260, 262] tensor: column stride 2.
  Tensor b = Tensor::randn({4, 260, 262}, 6, DType::F16).as_strided({4, 260, 131}, {260 * 262, 262, 2}, 0);
  expect_bit_identical(run1(OpKind::Matmul, {T(a), T(b)}), naive_matmul(a, b));
}

TEST(MatmulBitExact, BatchedBf16WithOffsetAndTransposedOperand) {
  // a starts at an offset inside its storage; b is each batch's transpose.
  Tensor a = Tensor::randn({2, 6, 140}, 7, DType::BF16).as_strided({2, 5, 140}, {6 * 140, 140, 1}, 140);
  Tensor b = Tensor::randn({2, 129, 140}, 8, DType::BF16).as_strided({2, 140, 129}, {129 * 140, 1, 140}, 0);
  expect_bit_identical(run1(OpKind::Bmm, {T(a), T(b)}), naive_matmul(a, b));
}

TEST(MatmulBitExact, LinearF32MatchesTheTextbookProductWithTheWeightTransposed) {
  Tensor x = Tensor::randn({2, 3, 200}, 9), w = Tensor::randn({140, 200}, 10);
  const Tensor wt = w.as_strided({200, 140}, {1, 200}, 0);
  expect_bit_identical(run1(OpKind::Linear, {T(x), T(w)}), naive_matmul(x, wt));
}

}  // namespace
}  // namespace kiln
