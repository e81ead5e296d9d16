// Elementwise, creation, copy and in-place reference kernels and their type rules, on
// hand-computed cases (values checked exactly; expectations taken from PyTorch 2 on CPU).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "ops/op_call.h"
#include "ops/type_rules.h"

namespace kiln {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

KernelOperand T(const Tensor& t) { return KernelOperand{t, Scalar()}; }
KernelOperand L(Scalar s) { return KernelOperand{Tensor(), s}; }

Tensor F(std::vector<double> v, std::vector<int64_t> sizes = {}, DType t = DType::F32) {
  if (sizes.empty()) sizes = {static_cast<int64_t>(v.size())};
  return Tensor::from_doubles(v, sizes, t);
}
Tensor I(std::vector<int64_t> v, DType t = DType::I64, std::vector<int64_t> sizes = {}) {
  if (sizes.empty()) sizes = {static_cast<int64_t>(v.size())};
  return Tensor::from_ints(v, sizes, t);
}

Tensor run1(OpKind op, std::vector<KernelOperand> ops, const AttrMap& attrs = {}) {
  Expected<std::vector<Tensor>> r = run_op(op, attrs, ops);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message());
  return r ? r.value()[0] : Tensor();
}

std::string run_error(OpKind op, std::vector<KernelOperand> ops, const AttrMap& attrs = {}) {
  Expected<std::vector<Tensor>> r = run_op(op, attrs, ops);
  return r ? "no error" : r.error().message();
}

void expect_equal(const Tensor& got, const Tensor& want) {
  EXPECT_TRUE(got.equal(want)) << "got " << got.to_string() << "\nwant " << want.to_string();
}

TEST(TypeRules, BroadcastShapesWithSymbols) {
  Shape b(std::vector<Dim>{Dim::symbol("B"), Dim(4)});
  EXPECT_EQ(broadcast_shapes(b, Shape{1, 4})->to_string(), "[B,4]");
  EXPECT_EQ(broadcast_shapes(b, Shape{4})->to_string(), "[B,4]");
  EXPECT_EQ(broadcast_shapes(b, b)->to_string(), "[B,4]");
  // A symbol against another dim is assumed equal to it, with a guard (torch's dynamic shapes).
  std::vector<ShapeGuard> guards;
  EXPECT_EQ(broadcast_shapes(b, Shape{3, 4}, &guards)->to_string(), "[3,4]");
  Expected<Shape> two = broadcast_shapes(b, Shape{std::vector<Dim>{Dim::symbol("C"), Dim(4)}}, &guards);
  EXPECT_EQ(two->to_string(), "[B,4]");
  ASSERT_EQ(guards.size(), 2u);
  EXPECT_EQ(guards[0].to_string(), "B == 3");
  EXPECT_EQ(guards[1].to_string(), "B == C");
  // Two different static sizes are a true mismatch.
  Expected<Shape> bad = broadcast_shapes(Shape{3, 4}, Shape{2, 4}, &guards);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("3 vs 2"), std::string::npos) << bad.error().message();
}

TEST(TypeRules, ResultTypeWithScalarsAndZeroDim) {
  auto rt = [](std::vector<TypeOperand> ops) { return dtype_name(result_type(ops)); };
  TypeOperand i32{TensorType{DType::I32, Shape{3}}, {}}, u8{TensorType{DType::U8, Shape{3}}, {}},
      i8{TensorType{DType::I8, Shape{3}}, {}}, f16{TensorType{DType::F16, Shape{3}}, {}},
      b{TensorType{DType::Bool, Shape{3}}, {}}, f64_0d{TensorType{DType::F64, Shape{}}, {}};
  TypeOperand half{std::nullopt, Scalar(0.5)}, one{std::nullopt, Scalar(int64_t{1})};
  EXPECT_EQ(rt({i32, half}), "f32");
  EXPECT_EQ(rt({u8, i8}), "i16");
  EXPECT_EQ(rt({u8, one}), "u8");
  EXPECT_EQ(rt({b, one}), "i64");
  EXPECT_EQ(rt({f16, half}), "f16");
  EXPECT_EQ(rt({f16, f64_0d}), "f16");
  EXPECT_EQ(rt({i32, f64_0d}), "f64");
}

TEST(KernelsUnary, IntegerEdgeCases) {
  expect_equal(run1(OpKind::Abs, {T(I({-128, 5}, DType::I8))}), I({-128, 5}, DType::I8));
  expect_equal(run1(OpKind::Neg, {T(I({std::numeric_limits<int64_t>::min(), 3}))}),
               I({std::numeric_limits<int64_t>::min(), -3}));
  expect_equal(run1(OpKind::Sign, {T(F({-0.0, 2, -3, kNan}))}), F({0.0, 1, -1, 0}));
  expect_equal(run1(OpKind::Exp, {T(I({0}, DType::Bool))}), F({1.0}));
  expect_equal(run1(OpKind::BitwiseNot, {T(I({1, 0}, DType::Bool))}), I({0, 1}, DType::Bool));
  expect_equal(run1(OpKind::BitwiseNot, {T(I({0, 5}, DType::U8))}), I({255, 250}, DType::U8));
  EXPECT_NE(run_error(OpKind::Neg, {T(I({1}, DType::Bool))}).find("bool"), std::string::npos);
  EXPECT_NE(run_error(OpKind::Gelu, {T(I({1}))}).find("not implemented for 'i64'"), std::string::npos);
}

TEST(KernelsUnary, FloatActivations) {
  expect_equal(run1(OpKind::Round, {T(F({0.5, 1.5, 2.5, -0.5}, {}, DType::F64))}),
               F({0.0, 2.0, 2.0, -0.0}, {}, DType::F64));
  expect_equal(run1(OpKind::Round, {T(F({1.25, 1.35}, {}, DType::F64))}, {{"decimals", 1}}),
               F({1.2, 1.4}, {}, DType::F64));
  expect_equal(run1(OpKind::Relu, {T(F({-1, kNan, 2}))}), F({0, kNan, 2}));
  expect_equal(run1(OpKind::Gelu, {T(F({0.0, 1.0}, {}, DType::F64))}),
               F({0.0, 0.5 * (1 + std::erf(std::numbers::sqrt2 / 2))}, {}, DType::F64));
  expect_equal(run1(OpKind::Softplus, {T(F({30.0}, {}, DType::F64))}), F({30.0}, {}, DType::F64));
  expect_equal(run1(OpKind::Hardtanh, {T(F({-3, 0.5, 3, kNan}))}), F({-1, 0.5, 1, kNan}));
  expect_equal(run1(OpKind::Isnan, {T(F({kNan, kInf}))}), I({1, 0}, DType::Bool));
  expect_equal(run1(OpKind::LogicalNot, {T(F({kNan, 0.0}))}), I({0, 1}, DType::Bool));
}

TEST(KernelsBinary, PromotionAndBroadcast) {
  Tensor a = F({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor r = run1(OpKind::Add, {T(a), T(F({10, 20, 30}))}, {{"alpha", 2}});
  expect_equal(r, F({21, 42, 63, 24, 45, 66}, {2, 3}));
  expect_equal(run1(OpKind::Add, {T(I({1, 2}, DType::I32)), L(0.5)}), F({1.5, 2.5}));
  expect_equal(run1(OpKind::Add, {T(I({1, 0}, DType::Bool)), T(I({1, 0}, DType::Bool))}), I({1, 0}, DType::Bool));
  expect_equal(run1(OpKind::Add, {T(I({250}, DType::U8)), L(int64_t{10})}), I({4}, DType::U8));
  expect_equal(run1(OpKind::Add, {T(I({100}, DType::U8)), T(I({-1}, DType::I8))}), I({99}, DType::I16));
  expect_equal(run1(OpKind::Mul, {T(I({std::numeric_limits<int64_t>::max()})), L(int64_t{2})}), I({-2}));
  EXPECT_NE(run_error(OpKind::Sub, {T(I({1}, DType::Bool)), T(I({1}, DType::Bool))}).find("bool"), std::string::npos);
  EXPECT_NE(run_error(OpKind::Add, {T(F({1, 2})), T(F({1, 2, 3}))}).find("not broadcastable"), std::string::npos);
  EXPECT_NE(run_error(OpKind::Add, {T(I({1})), T(I({1}))}, {{"alpha", 0.5}}).find("alpha"), std::string::npos);
}

TEST(KernelsBinary, NonContiguousOperand) {
  Tensor a = F({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor at = a.as_strided({3, 2}, {1, 3}, 0);  // a transposed
  expect_equal(run1(OpKind::Mul, {T(at), L(2.0)}), F({2, 8, 4, 10, 6, 12}, {3, 2}));
}

TEST(KernelsBinary, DivisionModes) {
  expect_equal(run1(OpKind::Div, {T(I({7, -7})), T(I({2, 2}))}), F({3.5, -3.5}));
  expect_equal(run1(OpKind::Div, {T(I({7, -7})), L(int64_t{2})}, {{"rounding_mode", "trunc"}}), I({3, -3}));
  expect_equal(run1(OpKind::Div, {T(I({7, -7})), L(int64_t{2})}, {{"rounding_mode", "floor"}}), I({3, -4}));
  expect_equal(run1(OpKind::Div, {T(I({-128}, DType::I8)), T(I({-1}, DType::I8))}, {{"rounding_mode", "floor"}}),
               I({-128}, DType::I8));
  expect_equal(run1(OpKind::Div, {T(F({-7, 7, 1})), L(0.0)}, {{"rounding_mode", "floor"}}), F({-kInf, kInf, kInf}));
  EXPECT_NE(run_error(OpKind::Div, {T(I({1, 2})), T(I({1, 0}))}, {{"rounding_mode", "trunc"}}).find("division by zero"),
            std::string::npos);
  EXPECT_NE(run_error(OpKind::Remainder, {T(I({1})), L(int64_t{0})}).find("division by zero"), std::string::npos);
  expect_equal(run1(OpKind::Remainder, {T(I({-7, 7})), L(int64_t{3})}), I({2, 1}));
  expect_equal(run1(OpKind::Remainder, {T(F({-7, 7})), L(-3.0)}), F({-1, -2}));
  expect_equal(run1(OpKind::Fmod, {T(I({-7, 7})), L(int64_t{-3})}), I({-1, 1}));
  expect_equal(run1(OpKind::Remainder, {T(I({std::numeric_limits<int64_t>::min()})), L(int64_t{-1})}), I({0}));
}

TEST(KernelsBinary, PowShiftsCompareMinMax) {
  EXPECT_NE(run_error(OpKind::Pow, {T(I({2})), L(int64_t{-1})}).find("negative integer powers"), std::string::npos);
  expect_equal(run1(OpKind::Pow, {T(I({3, 2, -1})), T(I({-1, 64, -3}))}), I({0, 0, -1}));
  expect_equal(run1(OpKind::Pow, {L(int64_t{2}), T(I({3}))}), I({8}));
  expect_equal(run1(OpKind::BitwiseLeftShift, {T(I({1}, DType::I8)), T(I({7, 8, -1}, DType::I8))}),
               I({-128, 0, 0}, DType::I8));
  expect_equal(run1(OpKind::BitwiseRightShift, {T(I({-5, 5})), T(I({64, -1}))}), I({-1, 0}));
  expect_equal(run1(OpKind::Eq, {T(F({0.1f})), L(0.1)}), I({1}, DType::Bool));
  expect_equal(run1(OpKind::Ne, {T(F({kNan})), T(F({kNan}))}), I({1}, DType::Bool));
  expect_equal(run1(OpKind::Maximum, {T(F({kNan, 1})), T(F({1, 2}))}), F({kNan, 2}));
  expect_equal(run1(OpKind::Minimum, {T(I({1, 0}, DType::Bool)), T(I({1, 1}, DType::Bool))}), I({1, 0}, DType::Bool));
  expect_equal(run1(OpKind::LogicalAnd, {T(F({kNan, 0})), T(I({2, 2}))}), I({1, 0}, DType::Bool));
  EXPECT_NE(run_error(OpKind::BitwiseAnd, {T(F({1})), T(F({1}))}).find("not implemented"), std::string::npos);
}

TEST(KernelsTernary, WhereClampLerpAddc) {
  Tensor c = I({1, 0}, DType::Bool);
  expect_equal(run1(OpKind::Where, {T(c), T(I({3, -2})), L(2.5)}), F({3, 2.5}));
  expect_equal(run1(OpKind::Clamp, {T(I({3, -2}))}, {{"min", 0.5}}), F({3, 0.5}));
  expect_equal(run1(OpKind::Clamp, {T(I({3, -2}))}, {{"min", 1}, {"max", 0}}), I({0, 0}));
  expect_equal(run1(OpKind::Clamp, {T(F({1, kNan}))}, {{"min", 0}, {"max", kNan}}), F({kNan, kNan}));
  EXPECT_NE(run_error(OpKind::Clamp, {T(F({1}))}).find("at least one"), std::string::npos);
  expect_equal(run1(OpKind::Lerp, {T(F({0, 0})), T(F({10, 10})), L(0.25)}), F({2.5, 2.5}));
  expect_equal(run1(OpKind::Addcmul, {T(I({3, -2})), T(I({3, -2})), T(I({3, -2}))}, {{"value", 2}}), I({21, 6}));
  EXPECT_NE(run_error(OpKind::Addcdiv, {T(I({1})), T(I({1})), T(I({1}))}).find("not implemented"), std::string::npos);
}

TEST(KernelsCreation, FullArangeRandom) {
  expect_equal(run1(OpKind::Full, {}, {{"size", AttrValue::Ints{2}}, {"fill_value", 1}}), I({1, 1}));
  expect_equal(run1(OpKind::Full, {}, {{"size", AttrValue::Ints{1}}, {"fill_value", true}}), I({1}, DType::Bool));
  EXPECT_NE(run_error(OpKind::Full, {}, {{"size", AttrValue::Ints{1}}, {"fill_value", 300}, {"dtype", DType::U8}})
                .find("overflow"),
            std::string::npos);
  expect_equal(run1(OpKind::Empty, {}, {{"size", AttrValue::Ints{2}}}), F({0, 0}));
  expect_equal(run1(OpKind::Arange, {}, {{"start", 0}, {"end", 1}, {"step", 0.3}}), F({0, 0.3, 0.6, 0.9}));
  expect_equal(run1(OpKind::Arange, {}, {{"start", 5}, {"end", 0}, {"step", -2}}), I({5, 3, 1}));
  EXPECT_NE(run_error(OpKind::Arange, {}, {{"start", 0}, {"end", 5}, {"step", -1}}).find("step sign"),
            std::string::npos);
  Tensor p = run1(OpKind::Randperm, {}, {{"n", 6}, {"seed", 3}});
  std::vector<int> seen(6, 0);
  for (int64_t i = 0; i < 6; ++i) ++seen[static_cast<size_t>(p.item_int(i))];
  EXPECT_EQ(seen, std::vector<int>(6, 1));
  expect_equal(run1(OpKind::Rand, {}, {{"size", AttrValue::Ints{3}}, {"seed", 7}}), Tensor::rand({3}, 7));
  expect_equal(run1(OpKind::FullLike, {T(I({1, 2}))}, {{"fill_value", 2.7}}), I({2, 2}));
  EXPECT_NE(run_error(OpKind::Rand, {}, {{"size", AttrValue::Ints{3}}, {"dtype", DType::I64}}).find("floating"),
            std::string::npos);
}

TEST(KernelsInplace, WritesThroughStridesAndChecksCasts) {
  Tensor base = F({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor col = base.as_strided({2}, {3}, 1);  // base[:, 1]
  Tensor r = run1(OpKind::AddInplace, {T(col), L(10.0)});
  EXPECT_EQ(r.storage(), base.storage());
  expect_equal(base, F({1, 12, 3, 4, 15, 6}, {2, 3}));
  EXPECT_NE(run_error(OpKind::AddInplace, {T(I({1})), T(F({1}))}).find("can't be cast to the desired output type i64"),
            std::string::npos);
  EXPECT_NE(run_error(OpKind::AddInplace, {T(F({1, 2, 3})), T(F({1, 2, 3, 4, 5, 6}, {2, 3}))}).find("doesn't match"),
            std::string::npos);
  Tensor u = I({0, 0}, DType::U8);
  run1(OpKind::SubInplace, {T(u), L(int64_t{1})});
  expect_equal(u, I({255, 255}, DType::U8));
  Tensor z = F({0, 0, 0, 0, 0, 0}, {2, 3});
  run1(OpKind::CopyInplace, {T(z), T(F({1, 2, 3}))});
  expect_equal(z, F({1, 2, 3, 1, 2, 3}, {2, 3}));
  Tensor k = I({0, 0}, DType::I32);
  run1(OpKind::FillInplace, {T(k), L(2.7)});
  expect_equal(k, I({2, 2}, DType::I32));
  run1(OpKind::ZeroInplace, {T(k)});
  expect_equal(k, I({0, 0}, DType::I32));
}

TEST(KernelsCopy, ToCopyConvertsLikeTorch) {
  expect_equal(run1(OpKind::ToCopy, {T(F({300, -1, 2.7, -2.7}))}, {{"dtype", DType::U8}}),
               I({44, 255, 2, 254}, DType::U8));
  Tensor a = F({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor c = run1(OpKind::Contiguous, {T(a.as_strided({3, 2}, {1, 3}, 0))});
  EXPECT_TRUE(c.is_contiguous());
  expect_equal(c, F({1, 4, 2, 5, 3, 6}, {3, 2}));
}

}  // namespace
}  // namespace kiln
