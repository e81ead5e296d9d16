// as_strided and the view inverses (slice_scatter, select_scatter, as_strided_scatter): results,
// the errors of their rules and kernels, the strided-geometry helpers they share, and the
// derivative of an overlapping as_strided (gradients of shared elements add up).
#include <gtest/gtest.h>

#include "autograd/joint_graph.h"
#include "interp/interpreter.h"
#include "ir/parser.h"
#include "kernel_test_util.h"
#include "ops/strided_geometry.h"

namespace kiln {
namespace {

using test::arange_f;
using test::F;
using test::I;
using test::run1;
using test::run_error;
using test::T;

TEST(ViewScatterOps, AsStridedIsAViewOfTheStorage) {
  Tensor x = arange_f({3, 3});
  Tensor v = run1(OpKind::AsStrided, {T(x)},
                  {{"size", AttrValue::Ints{2, 2}}, {"stride", AttrValue::Ints{3, 1}}, {"storage_offset", int64_t{1}}});
  test::expect_close(v, F({1, 2, 4, 5}, {2, 2}));
  EXPECT_EQ(v.storage(), x.storage());
  // Without an offset, the view starts where self does.
  Tensor row = x.as_strided({3}, {1}, 3);
  Tensor w = run1(OpKind::AsStrided, {T(row)}, {{"size", AttrValue::Ints{2}}, {"stride", AttrValue::Ints{2}}});
  test::expect_close(w, F({3, 5}));
}

TEST(ViewScatterOps, ScattersReplaceTheViewedElements) {
  Tensor x = arange_f({3, 2});
  test::expect_close(
      run1(OpKind::SliceScatter, {T(x), T(I({7, 8, 9, 10}, {2, 2}))}, {{"dim", int64_t{0}}, {"start", int64_t{1}}}),
      F({0, 1, 7, 8, 9, 10}, {3, 2}));
  test::expect_close(
      run1(OpKind::SelectScatter, {T(x), T(F({-1, -2, -3}))}, {{"dim", int64_t{1}}, {"index", int64_t{-1}}}),
      F({0, -1, 2, -2, 4, -3}, {3, 2}));
  test::expect_close(
      run1(OpKind::AsStridedScatter, {T(x), T(F({9, 9}))},
           {{"size", AttrValue::Ints{2}}, {"stride", AttrValue::Ints{3}}, {"storage_offset", int64_t{1}}}),
      F({0, 9, 2, 3, 9, 5}, {3, 2}));
  // self is left as it was.
  test::expect_close(x, arange_f({3, 2}));
}

TEST(ViewScatterOps, Errors) {
  Tensor x = arange_f({4, 3});
  EXPECT_EQ(
      run_error(OpKind::AsStrided, {T(x)},
                {{"size", AttrValue::Ints{3, 3}}, {"stride", AttrValue::Ints{3, 1}}, {"storage_offset", int64_t{5}}}),
      "as_strided: sizes [3, 3], strides [3, 1] and storage offset 5 require a storage of 14 elements, but "
      "self's storage has 12");
  EXPECT_EQ(run_error(OpKind::AsStrided, {T(x)}, {{"size", AttrValue::Ints{3}}, {"stride", AttrValue::Ints{1, 1}}}),
            "as_strided: mismatch in length of strides and shape (size [3], stride [1, 1])");
  EXPECT_EQ(run_error(OpKind::AsStrided, {T(x)}, {{"size", AttrValue::Ints{-1}}, {"stride", AttrValue::Ints{1}}}),
            "as_strided: negative size -1 in [-1]");
  EXPECT_EQ(run_error(OpKind::AsStrided, {T(x)},
                      {{"size", AttrValue::Ints{1}}, {"stride", AttrValue::Ints{1}}, {"storage_offset", int64_t{-2}}}),
            "as_strided: negative storage offset -2");
  EXPECT_EQ(
      run_error(OpKind::SliceScatter, {T(x), T(arange_f({3, 3}))}, {{"start", int64_t{2}}}),
      "slice_scatter: expected src to have a size equal to the slice of self. src size = [3,3], slice size = [2,3]");
  EXPECT_EQ(run_error(OpKind::SliceScatter, {T(x), T(x)}, {{"dim", int64_t{2}}}),
            "slice_scatter: dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_EQ(run_error(OpKind::SliceScatter, {T(x), T(x)}, {{"step", int64_t{0}}}),
            "slice_scatter: step must be positive, got 0");
  EXPECT_EQ(run_error(OpKind::SelectScatter, {T(x), T(arange_f({3}))}, {{"dim", int64_t{0}}, {"index", int64_t{-5}}}),
            "select_scatter: index -5 out of range for tensor of size [4,3] at dimension 0");
  EXPECT_EQ(run_error(OpKind::SelectScatter, {T(x), T(arange_f({4}))}, {{"dim", int64_t{0}}, {"index", int64_t{0}}}),
            "select_scatter: expected src to have a size equal to the slice of self. src size = [4], slice size = [3]");
  EXPECT_EQ(
      run_error(OpKind::AsStridedScatter, {T(x), T(arange_f({2, 2}))},
                {{"size", AttrValue::Ints{2, 2}}, {"stride", AttrValue::Ints{6, 1}}, {"storage_offset", int64_t{6}}}),
      "as_strided_scatter: size [2, 2], stride [6, 1] and storage offset 6 reach 14 elements, but self [4,3] has 12");
  EXPECT_EQ(run_error(OpKind::AsStridedScatter, {T(x), T(arange_f({2}))},
                      {{"size", AttrValue::Ints{2, 2}}, {"stride", AttrValue::Ints{1, 1}}}),
            "as_strided_scatter: expected src to have a size equal to the slice of self. src size = [2], "
            "slice size = [2,2]");
}

TEST(StridedGeometry, ExtentAndOverlap) {
  EXPECT_EQ(strided_storage_extent({2, 2}, {3, 1}, 1), 6);
  EXPECT_EQ(strided_storage_extent({0, 5}, {5, 1}, 3), 0);
  EXPECT_EQ(strided_storage_extent({}, {}, 4), 5);
  EXPECT_FALSE(strided_may_overlap({2, 3}, {3, 1}));
  EXPECT_FALSE(strided_may_overlap({3, 2}, {1, 3}));  // a transpose
  EXPECT_FALSE(strided_may_overlap({2, 1}, {1, 0}));  // stride 0 over a dim of size 1
  EXPECT_TRUE(strided_may_overlap({3, 3}, {1, 1}));
  EXPECT_TRUE(strided_may_overlap({2, 3}, {0, 1}));
  EXPECT_EQ(view_strides({2, 3}, {3, 1}, {6}), (std::vector<int64_t>{1}));
  EXPECT_FALSE(view_strides({3, 2}, {1, 3}, {6}).has_value());  // a transpose cannot flatten without a copy
}

// d/dx sum(as_strided(x, [3, 3], [1, 1]) * w): element k of x appears at every (i, j) with
// i + j == k, so its gradient sums those w[i, j].
TEST(ViewScatterOps, OverlappingAsStridedGradientAccumulates) {
  auto g = parse_graph(R"(graph @f(%x: f64[5], %w: f64[3,3]) -> (f64[]) {
  %0 = as_strided(%x) {size=[3, 3], stride=[1, 1]} : f64[3,3]
  %1 = mul(%0, %w) : f64[3,3]
  %2 = sum(%1) : f64[]
  return %2
})");
  ASSERT_TRUE(g.has_value()) << g.error().to_string();
  auto joint = joint_graph(**g);
  ASSERT_TRUE(joint.has_value()) << joint.error().to_string();
  Tensor x = Tensor::randn({5}, 1, DType::F64), w = arange_f({3, 3}, DType::F64);
  Tensor tangent = Tensor::full({}, 1.0, DType::F64);
  auto out = interpret(*joint->graph, std::vector<Tensor>{x, w, tangent});
  ASSERT_TRUE(out.has_value()) << out.error().to_string();
  // Outputs: the loss, then the gradients of x and w.
  test::expect_close((*out)[1], F({0, 1 + 3, 2 + 4 + 6, 5 + 7, 8}, {5}, DType::F64));
}

}  // namespace
}  // namespace kiln
