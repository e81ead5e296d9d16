// Indexing kernels: gathers and scatters with hand-computed results, and index errors as
// Diagnostics ("index_select: index 7 is out of bounds for dim 0 with size 5").
#include "kernel_test_util.h"

namespace kiln {
namespace {

using namespace test;

TEST(KernelsIndex, IndexSelectAndOutOfBounds) {
  Tensor x = arange_f({5, 2});
  expect_close(run1(OpKind::IndexSelect, {T(x), T(I({4, 0}))}, {{"dim", 0}}), F({8, 9, 0, 1}, {2, 2}));
  EXPECT_EQ(run_error(OpKind::IndexSelect, {T(x), T(I({7}))}, {{"dim", 0}}),
            "index_select: index 7 is out of bounds for dim 0 with size 5");
  EXPECT_NE(run_error(OpKind::IndexSelect, {T(x), T(F({1}))}, {{"dim", 0}}).find("expected dtype i32 or i64"),
            std::string::npos);
}

TEST(KernelsIndex, GatherScatter) {
  Tensor x = arange_f({2, 3});
  Tensor idx = I({2, 0, 1, 1}, {2, 2});
  expect_close(run1(OpKind::Gather, {T(x), T(idx)}, {{"dim", 1}}), F({2, 0, 4, 4}, {2, 2}));
  EXPECT_EQ(run_error(OpKind::Gather, {T(x), T(I({3}, {1, 1}))}, {{"dim", 1}}),
            "gather: index 3 is out of bounds for dim 1 with size 3");
  Tensor z = F({0, 0, 0, 0, 0, 0}, {2, 3});
  expect_close(run1(OpKind::Scatter, {T(z), T(idx), T(F({1, 2, 3, 4}, {2, 2}))}, {{"dim", 1}}),
               F({2, 0, 1, 0, 4, 0}, {2, 3}));
  expect_close(run1(OpKind::Scatter, {T(z), T(idx), L(5.0)}, {{"dim", 1}}), F({5, 0, 5, 0, 5, 0}, {2, 3}));
  expect_close(run1(OpKind::ScatterAdd, {T(z), T(idx), T(F({1, 2, 3, 4}, {2, 2}))}, {{"dim", 1}}),
               F({2, 0, 1, 0, 7, 0}, {2, 3}));
}

TEST(KernelsIndex, AdvancedIndex) {
  Tensor x = arange_f({2, 3, 4});
  // x[:, [2, 0], [1, 3]] -> [2, 2] (adjacent indexed dims stay in place).
  Tensor r = run1(OpKind::Index, {T(x), None(), T(I({2, 0})), T(I({1, 3}))});
  expect_close(r, F({9, 3, 21, 15}, {2, 2}));
  // x[[1, 0], :, [-1]] -> [2, 3] (separated indexed dims go first).
  Tensor s = run1(OpKind::Index, {T(x), T(I({1, 0})), None(), T(I({-1}))});
  expect_close(s, F({15, 19, 23, 3, 7, 11}, {2, 3}));
  EXPECT_EQ(run_error(OpKind::Index, {T(x), T(I({2}))}), "index: index 2 is out of bounds for dim 0 with size 2");
}

TEST(KernelsIndex, IndexPutIndexAddMaskedFillEmbedding) {
  Tensor z = F({0, 0, 0});
  expect_close(run1(OpKind::IndexPut, {T(z), T(I({0, 2, 0})), T(F({1}))}, {{"accumulate", true}}), F({2, 0, 1}));
  expect_close(run1(OpKind::IndexPut, {T(z), T(I({1})), T(F({5}))}), F({0, 5, 0}));
  expect_close(run1(OpKind::IndexAdd, {T(arange_f({3, 2})), T(I({2, 2})), T(F({1, 1, 1, 1}, {2, 2}))},
                    {{"dim", 0}, {"alpha", 2}}),
               F({0, 1, 2, 3, 8, 9}, {3, 2}));
  Tensor mask = Tensor::from_ints({1, 0}, {2}, DType::Bool);
  expect_close(run1(OpKind::MaskedFill, {T(arange_f({2, 2})), T(mask), L(-1.0)}), F({-1, 1, -1, 3}, {2, 2}));
  Tensor w = arange_f({4, 2});
  expect_close(run1(OpKind::Embedding, {T(w), T(I({3, 0}, {1, 2}))}), F({6, 7, 0, 1}, {1, 2, 2}));
  EXPECT_EQ(run_error(OpKind::Embedding, {T(w), T(I({4}))}),
            "embedding: index 4 is out of bounds for dim 0 with size 4");
}

}  // namespace
}  // namespace kiln
