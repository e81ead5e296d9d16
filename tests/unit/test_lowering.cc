// Lowering checked against the interpreter: each small graph is lowered, run by the loop-IR
// evaluator and by interpret() on the same random inputs, in float64 and float32.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "interp/interpreter.h"
#include "ir/parser.h"
#include "lower/loop_eval.h"
#include "lower/loop_text.h"
#include "lower/lower.h"
#include "lowering_cases.h"

namespace kiln {
namespace {

void check_case(const LoweringCase& c, const std::string& dt) {
  SCOPED_TRACE(std::string(c.name) + " " + dt);
  auto g = parse_graph(with_dtype(c.text, dt));
  ASSERT_TRUE(g) << g.error().to_string();
  auto p = lower_graph(**g);
  ASSERT_TRUE(p) << p.error().to_string();
  // The printed form round-trips.
  const std::string text = print_loops(*p);
  auto back = parse_loops(text);
  ASSERT_TRUE(back) << back.error().to_string() << "\n" << text;
  EXPECT_EQ(print_loops(*back), text);
  std::vector<Tensor> inputs;
  for (int i = 0; i < (*g)->num_inputs(); ++i) {
    const TensorType& t = (*g)->input(i)->type();
    inputs.push_back(Tensor::randn(t.shape.sizes(), 100 + static_cast<uint64_t>(i), t.dtype));
  }
  auto want = interpret(**g, inputs);
  ASSERT_TRUE(want) << want.error().to_string();
  auto got = eval_loops(*back, inputs);
  ASSERT_TRUE(got) << got.error().to_string() << "\n" << text;
  ASSERT_EQ(want->size(), got->size());
  const double tol = dt == "f64" ? 1e-12 : 1e-5;
  for (size_t j = 0; j < want->size(); ++j) {
    const Tensor& w = (*want)[j];
    const Tensor& o = (*got)[j];
    ASSERT_EQ(w.type(), o.type()) << "output " << j;
    for (int64_t i = 0; i < w.numel(); ++i) {
      const double a = w.item_double(i), b = o.item_double(i);
      if (std::isnan(a) && std::isnan(b)) continue;
      EXPECT_NEAR(a, b, tol * (1 + std::fabs(a))) << "output " << j << " element " << i << "\n" << text;
    }
  }
}

TEST(Lowering, MatchesInterpreterF64) {
  for (const LoweringCase& c : kLoweringCases) check_case(c, "f64");
}

TEST(Lowering, MatchesInterpreterF32) {
  for (const LoweringCase& c : kLoweringCases) check_case(c, "f32");
}

TEST(Lowering, ViewsMakeNoKernels) {
  auto g = parse_graph(
      "graph @g(%x: f32[2,3]) -> (f32[3,2]) {\n %0 = transpose(%x) {dim0=0, dim1=1} : f32[3,2]\n"
      " %1 = exp(%0) : f32[3,2]\n return %1\n}");
  ASSERT_TRUE(g);
  auto p = lower_graph(**g);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->kernels.size(), 1u);
  EXPECT_NE(print_loops(*p).find("load %x[i0 + 3*i1]"), std::string::npos) << print_loops(*p);
}

TEST(Lowering, SymbolicGraphIsRefused) {
  auto g2 = parse_graph("graph @g(%x: f32[B]) -> (f32[B]) {\n %0 = exp(%x) : f32[B]\n return %0\n}");
  ASSERT_TRUE(g2);
  auto p = lower_graph(**g2);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().to_string().find("symbolic shape f32[B]"), std::string::npos);
}

TEST(LoopIr, IndexExprCanonical) {
  IndexExpr a = IndexExpr::var(1).plus(IndexExpr::var(0).scaled(8)).plus(IndexExpr::constant_of(3));
  EXPECT_EQ(a.to_string(), "8*i0 + i1 + 3");
  EXPECT_EQ(IndexExpr::floor_div(IndexExpr::var(0).scaled(6).plus(IndexExpr::constant_of(4)), 2).to_string(),
            "3*i0 + 2");
  EXPECT_EQ(IndexExpr::mod(IndexExpr::var(0).scaled(4).plus(IndexExpr::var(1)), 4).to_string(), "mod(i1, 4)");
  EXPECT_EQ(a.plus(a.scaled(-1)).to_string(), "0");
  EXPECT_EQ(IndexExpr::var(0).scaled(-2).plus(IndexExpr::constant_of(-1)).to_string(), "-2*i0 - 1");
}

TEST(LoopIr, EvaluatorRejectsOutOfRangeIndex) {
  const char* text =
      "loops @f(%x: f32[4]) -> (%out0) {\n  buffer %out0 : f32[4] strides [1]\n  kernel @k0 pointwise {\n"
      "    for i0 in range(4) {\n      %0 = load %x[i0 + 1]\n      store %out0[i0], %0\n    }\n  }\n}\n";
  auto p = parse_loops(text);
  ASSERT_TRUE(p) << p.error().to_string();
  Tensor x = Tensor::zeros({4});
  auto r = eval_loops(*p, std::span<const Tensor>(&x, 1));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().to_string().find("outside the buffer"), std::string::npos) << r.error().to_string();
  EXPECT_NE(r.error().to_string().find("kernel @k0"), std::string::npos);
}

TEST(LoopIr, ParseErrorsHaveLocations) {
  auto p = parse_loops(
      "loops @f() -> () {\n  kernel @k0 pointwise {\n    for i0 in range(2) {\n      store %y[i0], %1\n", "t.loops");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().to_string().rfind("t.loops:4:13: error: unknown buffer '%y'", 0), 0u) << p.error().to_string();
  auto q = parse_loops("loops @f() -> () {\n  kernel @k0 pointwise {\n", "t.loops");
  ASSERT_FALSE(q);
  EXPECT_NE(q.error().to_string().find("t.loops:3:1: error: expected '}', got end of file"), std::string::npos)
      << q.error().to_string();
}

}  // namespace
}  // namespace kiln
