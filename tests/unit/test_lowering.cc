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

namespace kiln {
namespace {

struct Case {
  const char* name;
  const char* text;  // "DT" is replaced by the dtype under test
};

const Case kCases[] = {
    {"pointwise_chain", "graph @g(%x: DT[3,5]) -> (DT[3,5]) {\n %0 = exp(%x) : DT[3,5]\n %1 = neg(%0) : DT[3,5]\n"
                        " %2 = sigmoid(%1) : DT[3,5]\n %3 = tanh(%2) : DT[3,5]\n %4 = relu(%3) : DT[3,5]\n return %4\n}"},
    {"broadcast", "graph @g(%x: DT[3,1,5], %y: DT[4,1]) -> (DT[3,4,5]) {\n %0 = sub(%x, %y) {alpha=0.5} : DT[3,4,5]\n"
                  " %1 = maximum(%0, %y) : DT[3,4,5]\n %2 = div(%1, 3.0) : DT[3,4,5]\n return %2\n}"},
    {"compare_where", "graph @g(%x: DT[4,6], %y: DT[6]) -> (DT[4,6], bool[4,6]) {\n %0 = lt(%x, %y) : bool[4,6]\n"
                      " %1 = where(%0, %x, 0.25) : DT[4,6]\n %2 = masked_fill(%x, %0, -2.0) : DT[4,6]\n"
                      " %3 = add(%1, %2) : DT[4,6]\n return %3, %0\n}"},
    {"reductions", "graph @g(%x: DT[3,4,5]) -> (DT[3,1,5], DT[4], DT[3,4,1], DT[]) {\n"
                   " %0 = sum(%x) {dim=[1], keepdim=true} : DT[3,1,5]\n %1 = mean(%x) {dim=[0, 2]} : DT[4]\n"
                   " %2 = amax(%x) {dim=[-1], keepdim=true} : DT[3,4,1]\n %3 = amin(%x) : DT[]\n"
                   " return %0, %1, %2, %3\n}"},
    {"views", "graph @g(%x: DT[2,3,4]) -> (DT[4,6], DT[3,2,4], DT[2,1,3,4], DT[2,2], DT[2,3,2,4]) {\n"
              " %0 = permute(%x) {dims=[2, 0, 1]} : DT[4,2,3]\n %1 = reshape(%0) {shape=[4, 6]} : DT[4,6]\n"
              " %2 = transpose(%x) {dim0=0, dim1=1} : DT[3,2,4]\n %3 = unsqueeze(%x) {dim=1} : DT[2,1,3,4]\n"
              " %4 = slice(%1) {dim=1, start=1, end=5, step=2} : DT[4,2]\n %5 = slice(%4) {dim=0, start=2} : DT[2,2]\n"
              " %6 = unsqueeze(%x) {dim=2} : DT[2,3,1,4]\n %7 = expand(%6) {size=[2, 3, 2, 4]} : DT[2,3,2,4]\n"
              " %8 = mul(%7, 2.0) : DT[2,3,2,4]\n return %1, %2, %3, %5, %8\n}"},
    {"size_one_and_squeeze", "graph @g(%x: DT[1,5,1]) -> (DT[5], DT[5,5]) {\n %0 = squeeze(%x) : DT[5]\n"
                             " %1 = unsqueeze(%0) {dim=0} : DT[1,5]\n %2 = transpose(%1) {dim0=0, dim1=1} : DT[5,1]\n"
                             " %3 = add(%2, %1) : DT[5,5]\n return %0, %3\n}"},
    {"empty_dim", "graph @g(%x: DT[0,3]) -> (DT[0,3], DT[3], DT[0]) {\n %0 = exp(%x) : DT[0,3]\n"
                  " %1 = sum(%x) {dim=[0]} : DT[3]\n %2 = sum(%x) {dim=[1]} : DT[0]\n return %0, %1, %2\n}"},
    {"extern_matmul", "graph @g(%x: DT[3,4], %w: DT[5,4]) -> (DT[3,5]) {\n %0 = t(%w) : DT[4,5]\n"
                      " %1 = matmul(%x, %0) : DT[3,5]\n %2 = relu(%1) : DT[3,5]\n return %2\n}"},
    {"extern_on_divmod_view", "graph @g(%x: DT[4,6]) -> (DT[8,3]) {\n %0 = transpose(%x) {dim0=0, dim1=1} : DT[6,4]\n"
                              " %1 = reshape(%0) {shape=[8, 3]} : DT[8,3]\n %2 = softmax(%1) {dim=1} : DT[8,3]\n"
                              " return %2\n}"},
};

std::string with_dtype(std::string s, const std::string& dt) {
  for (size_t at = s.find("DT"); at != std::string::npos; at = s.find("DT", at)) s.replace(at, 2, dt);
  return s;
}

void check_case(const Case& c, const std::string& dt) {
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
  for (const Case& c : kCases) check_case(c, "f64");
}

TEST(Lowering, MatchesInterpreterF32) {
  for (const Case& c : kCases) check_case(c, "f32");
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
  EXPECT_EQ(IndexExpr::floor_div(IndexExpr::var(0).scaled(6).plus(IndexExpr::constant_of(4)), 2).to_string(), "3*i0 + 2");
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
  auto p = parse_loops("loops @f() -> () {\n  kernel @k0 pointwise {\n    for i0 in range(2) {\n      store %y[i0], %1\n", "t.loops");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().to_string().rfind("t.loops:4:13: error: unknown buffer '%y'", 0), 0u) << p.error().to_string();
  auto q = parse_loops("loops @f() -> () {\n  kernel @k0 pointwise {\n", "t.loops");
  ASSERT_FALSE(q);
  EXPECT_NE(q.error().to_string().find("t.loops:3:1: error: expected '}', got end of file"), std::string::npos)
      << q.error().to_string();
}

}  // namespace
}  // namespace kiln
