// Tensor::to_string: the expected strings are torch 2.15's str(tensor) for the same values,
// with kiln's differences: the dtype is always printed, and integer-valued floats keep their
// 4 decimals ("1.0000", where torch prints "1.").
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/tensor.h"

namespace kiln {
namespace {

Tensor arange(int64_t n, std::vector<int64_t> sizes, DType dtype = DType::I64) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(i);
  return Tensor::from_ints(v, sizes, dtype);
}

TEST(TensorPrint, Matrix) {
  EXPECT_EQ(Tensor::from_doubles({1, 2, 3, 4}, {2, 2}).to_string(),
            "tensor([[1.0000, 2.0000],\n        [3.0000, 4.0000]], dtype=f32)");
}

TEST(TensorPrint, FloatsAlignRight) {
  EXPECT_EQ(Tensor::from_doubles({-1.25, 0.5, 100.0}, {1, 3}).to_string(),
            "tensor([[ -1.2500,   0.5000, 100.0000]], dtype=f32)");
  EXPECT_EQ(Tensor::from_doubles({-0.0, 1.0}, {2}, DType::F64).to_string(), "tensor([-0.0000,  1.0000], dtype=f64)");
  EXPECT_EQ(Tensor::from_doubles({0.1, 2.0}, {2}, DType::F16).to_string(), "tensor([0.1000, 2.0000], dtype=f16)");
  EXPECT_EQ(Tensor::from_doubles({0.5}, {1}, DType::BF16).to_string(), "tensor([0.5000], dtype=bf16)");
}

TEST(TensorPrint, IntegersWithoutDecimals) {
  EXPECT_EQ(Tensor::from_ints({1, -20, 300}, {1, 3}).to_string(), "tensor([[  1, -20, 300]], dtype=i64)");
  EXPECT_EQ(Tensor::from_ints({255, 0}, {2}, DType::U8).to_string(), "tensor([255,   0], dtype=u8)");
  EXPECT_EQ(arange(8, {2, 2, 2}, DType::I32).to_string(),
            "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]], dtype=i32)");
}

TEST(TensorPrint, Bools) {
  EXPECT_EQ(Tensor::from_ints({1, 0, 1}, {3}, DType::Bool).to_string(), "tensor([ True, False,  True], dtype=bool)");
}

TEST(TensorPrint, NanAndInf) {
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(Tensor::from_doubles({std::nan(""), inf, -inf, -1.25}, {4}).to_string(),
            "tensor([    nan,     inf,    -inf, -1.2500], dtype=f32)");
  EXPECT_EQ(Tensor::from_doubles({-std::nan("")}, {1}).to_string(), "tensor([nan], dtype=f32)");
}

TEST(TensorPrint, ScientificWhenTheRangeIsWide) {
  EXPECT_EQ(Tensor::from_doubles({1e-5, 1.0, 123.0}, {3}).to_string(),
            "tensor([1.0000e-05, 1.0000e+00, 1.2300e+02], dtype=f32)");
  EXPECT_EQ(Tensor::from_doubles({1, 2, 5000}, {3}).to_string(),
            "tensor([1.0000e+00, 2.0000e+00, 5.0000e+03], dtype=f32)");
  EXPECT_EQ(Tensor::from_doubles({1e9}, {1}, DType::F64).to_string(), "tensor([1.0000e+09], dtype=f64)");
}

TEST(TensorPrint, ZeroDim) {
  EXPECT_EQ(Tensor::scalar(Scalar(3.5), DType::F32).to_string(), "tensor(3.5000, dtype=f32)");
  EXPECT_EQ(Tensor::scalar(Scalar(int64_t{-7}), DType::I64).to_string(), "tensor(-7, dtype=i64)");
  EXPECT_EQ(Tensor::scalar(Scalar(true), DType::Bool).to_string(), "tensor(True, dtype=bool)");
}

TEST(TensorPrint, Empty) {
  EXPECT_EQ(Tensor::empty({0, 3}).to_string(), "tensor([], size=(0, 3), dtype=f32)");
  EXPECT_EQ(Tensor::empty({0}, DType::I8).to_string(), "tensor([], dtype=i8)");
}

TEST(TensorPrint, LongVectorsWrapAt80Columns) {
  std::vector<double> v;
  for (int i = 0; i < 30; ++i) v.push_back(i / 4.0);
  EXPECT_EQ(Tensor::from_doubles(v, {30}).to_string(),
            "tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000, 1.2500, 1.5000, 1.7500, 2.0000,\n"
            "        2.2500, 2.5000, 2.7500, 3.0000, 3.2500, 3.5000, 3.7500, 4.0000, 4.2500,\n"
            "        4.5000, 4.7500, 5.0000, 5.2500, 5.5000, 5.7500, 6.0000, 6.2500, 6.5000,\n"
            "        6.7500, 7.0000, 7.2500], dtype=f32)");
}

TEST(TensorPrint, SummarizesBeyond1000Elements) {
  EXPECT_EQ(arange(1000, {1000}).to_string().find("..."), std::string::npos);
  EXPECT_EQ(arange(1001, {1001}).to_string(), "tensor([   0,    1,    2,  ...,  998,  999, 1000], dtype=i64)");
  EXPECT_EQ(arange(2000, {40, 50}).to_string(),
            "tensor([[   0,    1,    2,  ...,   47,   48,   49],\n"
            "        [  50,   51,   52,  ...,   97,   98,   99],\n"
            "        [ 100,  101,  102,  ...,  147,  148,  149],\n"
            "        ...,\n"
            "        [1850, 1851, 1852,  ..., 1897, 1898, 1899],\n"
            "        [1900, 1901, 1902,  ..., 1947, 1948, 1949],\n"
            "        [1950, 1951, 1952,  ..., 1997, 1998, 1999]], dtype=i64)");
  EXPECT_EQ(arange(1200, {2, 20, 30}).to_string(),
            "tensor([[[   0,    1,    2,  ...,   27,   28,   29],\n"
            "         [  30,   31,   32,  ...,   57,   58,   59],\n"
            "         [  60,   61,   62,  ...,   87,   88,   89],\n"
            "         ...,\n"
            "         [ 510,  511,  512,  ...,  537,  538,  539],\n"
            "         [ 540,  541,  542,  ...,  567,  568,  569],\n"
            "         [ 570,  571,  572,  ...,  597,  598,  599]],\n"
            "\n"
            "        [[ 600,  601,  602,  ...,  627,  628,  629],\n"
            "         [ 630,  631,  632,  ...,  657,  658,  659],\n"
            "         [ 660,  661,  662,  ...,  687,  688,  689],\n"
            "         ...,\n"
            "         [1110, 1111, 1112,  ..., 1137, 1138, 1139],\n"
            "         [1140, 1141, 1142,  ..., 1167, 1168, 1169],\n"
            "         [1170, 1171, 1172,  ..., 1197, 1198, 1199]]], dtype=i64)");
}

TEST(TensorPrint, ViewsPrintTheirElements) {
  Tensor a = arange(6, {2, 3});
  EXPECT_EQ(a.as_strided({3, 2}, {1, 3}, 0).to_string(),
            "tensor([[0, 3],\n        [1, 4],\n        [2, 5]], dtype=i64)");
  EXPECT_EQ(a.as_strided({2}, {1}, 4).to_string(), "tensor([4, 5], dtype=i64)");
}

TEST(TensorPrint, TracedAndUndefined) {
  EXPECT_EQ(Tensor().to_string(), "Tensor(undefined)");
  // Any non-null handle makes a tensor traced; the handle's type belongs to the frontend, so
  // this test points at a dummy object and never dereferences it.
  static int dummy;
  std::shared_ptr<TraceHandle> handle(reinterpret_cast<TraceHandle*>(&dummy), [](TraceHandle*) {});
  Tensor t = Tensor::traced(TensorType{DType::F32, Shape({Dim::symbol("B"), Dim(4)})}, handle);
  EXPECT_EQ(t.to_string(), "Tensor(traced, f32[B,4])");
}

}  // namespace
}  // namespace kiln
