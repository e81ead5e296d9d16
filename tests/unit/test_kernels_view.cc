// View and layout kernels and shape rules: views share storage, reshape copies only when
// strides cannot express the shape, view refuses; -1 and symbolic dims in the rules.
#include "kernel_test_util.h"

namespace kiln {
namespace {

using namespace test;

bool shares_storage(const Tensor& a, const Tensor& b) { return a.storage() == b.storage(); }

TEST(KernelsView, ReshapeIsAViewWhenStridesAllow) {
  Tensor x = arange_f({2, 3, 4});
  Tensor r = run1(OpKind::Reshape, {T(x)}, {{"shape", AttrValue::Ints{-1, 4}}});
  EXPECT_EQ(r.sizes(), (std::vector<int64_t>{6, 4}));
  EXPECT_TRUE(shares_storage(r, x));
  Tensor xt = x.as_strided({4, 3, 2}, {1, 4, 12}, 0);  // permute(2, 1, 0)
  Tensor c = run1(OpKind::Reshape, {T(xt)}, {{"shape", AttrValue::Ints{24}}});
  EXPECT_FALSE(shares_storage(c, x));
  EXPECT_DOUBLE_EQ(c.item_double(1), 12);
  EXPECT_NE(run_error(OpKind::View, {T(xt)}, {{"size", AttrValue::Ints{24}}})
                .find("view size is not compatible with input tensor's size and stride"),
            std::string::npos);
}

TEST(KernelsView, ReshapeErrors) {
  Tensor x = arange_f({2, 3});
  EXPECT_EQ(run_error(OpKind::Reshape, {T(x)}, {{"shape", AttrValue::Ints{-1, -1}}}),
            "reshape: only one dimension can be inferred, got shape [-1, -1]");
  EXPECT_EQ(run_error(OpKind::Reshape, {T(x)}, {{"shape", AttrValue::Ints{-1, 4}}}),
            "reshape: shape '[-1, 4]' is invalid for input of size 6");
}

TEST(TypeRulesView, SymbolicReshapeAndFlatten) {
  auto ok = types_of(OpKind::Reshape, {{DType::F32, sym({"B", "4", "8"})}}, {{"shape", AttrValue::Ints{-1, 32}}});
  ASSERT_TRUE(ok.has_value()) << ok.error().message();
  EXPECT_EQ((*ok)[0].shape.to_string(), "[B,32]");
  // -1 takes the symbolic quotient of the element count.
  auto q = types_of(OpKind::Reshape, {{DType::F32, sym({"B", "4", "8"})}}, {{"shape", AttrValue::Ints{-1, 8}}});
  ASSERT_TRUE(q.has_value()) << q.error().message();
  EXPECT_EQ((*q)[0].shape.to_string(), "[4*B,8]");
  auto bad = types_of(OpKind::Reshape, {{DType::F32, sym({"B", "3"})}}, {{"shape", AttrValue::Ints{4, 2}}});
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message(), "reshape: shape '[4, 2]' is invalid for input of size 3*B");
  auto fl = types_of(OpKind::Flatten, {{DType::F32, sym({"B", "4", "8"})}}, {{"start_dim", 1}});
  ASSERT_TRUE(fl.has_value());
  EXPECT_EQ((*fl)[0].shape.to_string(), "[B,32]");
  EXPECT_EQ((*types_of(OpKind::Flatten, {{DType::F32, sym({"B", "4"})}}))[0].shape.to_string(), "[4*B]");
  auto p = types_of(OpKind::Permute, {{DType::F32, sym({"B", "T", "4"})}}, {{"dims", AttrValue::Ints{2, 0, 1}}});
  EXPECT_EQ((*p)[0].shape.to_string(), "[4,B,T]");
  auto u = types_of(OpKind::Unsqueeze, {{DType::F32, sym({"B", "T"})}}, {{"dim", -1}});
  EXPECT_EQ((*u)[0].shape.to_string(), "[B,T,1]");
  auto c = types_of(OpKind::Cat, {{DType::F32, sym({"B", "2"})}, {DType::F32, sym({"B", "3"})}}, {{"dim", 1}});
  EXPECT_EQ((*c)[0].shape.to_string(), "[B,5]");
}

TEST(KernelsView, PermuteTransposeExpandAreViews) {
  Tensor x = arange_f({2, 3});
  Tensor p = run1(OpKind::Permute, {T(x)}, {{"dims", AttrValue::Ints{1, 0}}});
  EXPECT_TRUE(shares_storage(p, x));
  expect_close(p.contiguous(), F({0, 3, 1, 4, 2, 5}, {3, 2}));
  Tensor t = run1(OpKind::Transpose, {T(x)}, {{"dim0", -1}, {"dim1", 0}});
  expect_close(t.contiguous(), p.contiguous());
  Tensor e = run1(OpKind::Expand, {T(F({1, 2}, {2, 1}))}, {{"size", AttrValue::Ints{3, -1, 4}}});
  EXPECT_EQ(e.sizes(), (std::vector<int64_t>{3, 2, 4}));
  EXPECT_EQ(e.strides(), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_NE(
      run_error(OpKind::Expand, {T(x)}, {{"size", AttrValue::Ints{2, 4}}}).find("must match the existing size (3)"),
      std::string::npos);
  EXPECT_EQ(run_error(OpKind::Permute, {T(x)}, {{"dims", AttrValue::Ints{0, 0}}}), "permute: repeated dim 0 in [0, 0]");
}

TEST(KernelsView, SqueezeUnsqueezeFlatten) {
  Tensor x = arange_f({2, 1, 3, 1});
  EXPECT_EQ(run1(OpKind::Squeeze, {T(x)}).sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(run1(OpKind::Squeeze, {T(x)}, {{"dim", AttrValue::Ints{-1, 0}}}).sizes(), (std::vector<int64_t>{2, 1, 3}));
  EXPECT_EQ(run1(OpKind::Unsqueeze, {T(x)}, {{"dim", -1}}).sizes(), (std::vector<int64_t>{2, 1, 3, 1, 1}));
  Tensor f = run1(OpKind::Flatten, {T(x)}, {{"start_dim", 1}, {"end_dim", 2}});
  EXPECT_EQ(f.sizes(), (std::vector<int64_t>{2, 3, 1}));
  EXPECT_TRUE(shares_storage(f, x));
  EXPECT_NE(run_error(OpKind::Unsqueeze, {T(x)}, {{"dim", 5}})
                .find("dimension out of range (expected to be in range of [-5, 4], but got 5)"),
            std::string::npos);
}

TEST(KernelsView, SliceSelectNarrowSplitChunk) {
  Tensor x = arange_f({5, 2});
  Tensor s = run1(OpKind::Slice, {T(x)}, {{"start", -4}, {"end", 100}, {"step", 2}});
  expect_close(s.contiguous(), F({2, 3, 6, 7}, {2, 2}));
  EXPECT_TRUE(shares_storage(s, x));
  expect_close(run1(OpKind::Select, {T(x)}, {{"dim", 1}, {"index", -1}}).contiguous(), F({1, 3, 5, 7, 9}));
  EXPECT_EQ(run_error(OpKind::Select, {T(x)}, {{"dim", 0}, {"index", 5}}),
            "select: index 5 out of range for tensor of size [5,2] at dimension 0");
  expect_close(run1(OpKind::Narrow, {T(x)}, {{"dim", 0}, {"start", -2}, {"length", 2}}).contiguous(),
               F({6, 7, 8, 9}, {2, 2}));
  std::vector<Tensor> parts = run_all(OpKind::Split, {T(x)}, {{"split_size", 2}});
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[2].sizes(), (std::vector<int64_t>{1, 2}));
  EXPECT_DOUBLE_EQ(parts[2].item_double(1), 9);
  std::vector<Tensor> chunks = run_all(OpKind::Chunk, {T(x)}, {{"chunks", 2}, {"dim", -1}});
  ASSERT_EQ(chunks.size(), 2u);
  expect_close(chunks[1].contiguous(), F({1, 3, 5, 7, 9}, {5, 1}));
}

TEST(KernelsLayout, CatStackPad) {
  Tensor a = arange_f({2, 2}), b = I({7, 8}, {2, 1});
  expect_close(run1(OpKind::Cat, {T(a), T(b)}, {{"dim", -1}}), F({0, 1, 7, 2, 3, 8}, {2, 3}));
  expect_close(run1(OpKind::Cat, {T(F({}, {0})), T(a)}), a);
  expect_close(run1(OpKind::Stack, {T(F({1, 2})), T(F({3, 4}))}, {{"dim", 1}}), F({1, 3, 2, 4}, {2, 2}));
  EXPECT_NE(run_error(OpKind::Cat, {T(a), T(F({1, 2, 3}, {1, 3}))}).find("sizes of tensors must match"),
            std::string::npos);
  expect_close(run1(OpKind::ConstantPadNd, {T(a)}, {{"pad", AttrValue::Ints{1, -1}}, {"value", 9.0}}),
               F({9, 0, 9, 2}, {2, 2}));
  expect_close(run1(OpKind::ConstantPadNd, {T(a)}, {{"pad", AttrValue::Ints{0, 0, 1, 0}}}),
               F({0, 0, 0, 1, 2, 3}, {3, 2}));
}

TEST(KernelsLayout, FlipRollRepeatTriangles) {
  Tensor x = arange_f({2, 3});
  expect_close(run1(OpKind::Flip, {T(x)}, {{"dims", AttrValue::Ints{0, -1}}}), F({5, 4, 3, 2, 1, 0}, {2, 3}));
  expect_close(run1(OpKind::Roll, {T(x)}, {{"shifts", AttrValue::Ints{1}}, {"dims", AttrValue::Ints{1}}}),
               F({2, 0, 1, 5, 3, 4}, {2, 3}));
  expect_close(run1(OpKind::Roll, {T(x)}, {{"shifts", AttrValue::Ints{-1}}}), F({1, 2, 3, 4, 5, 0}, {2, 3}));
  expect_close(run1(OpKind::Repeat, {T(F({1, 2}))}, {{"repeats", AttrValue::Ints{2, 2}}}),
               F({1, 2, 1, 2, 1, 2, 1, 2}, {2, 4}));
  expect_close(run1(OpKind::Tril, {T(x)}), F({0, 0, 0, 3, 4, 0}, {2, 3}));
  expect_close(run1(OpKind::Triu, {T(x)}, {{"diagonal", 1}}), F({0, 1, 2, 0, 0, 5}, {2, 3}));
  EXPECT_NE(run_error(OpKind::Tril, {T(F({1}))}).find("at least 2 dimensions"), std::string::npos);
}

}  // namespace
}  // namespace kiln
