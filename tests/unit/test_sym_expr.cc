// core: symbolic dim expressions (canonical simplification, printing, equality, binding,
// floor division), Dim arithmetic and guards, and the time long expressions take.
#include <gtest/gtest.h>

#include <ctime>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/shape.h"
#include "core/sym_expr.h"
#include "ir/parser.h"

namespace kiln {
namespace {

const SymExpr B = SymExpr::symbol("B");
const SymExpr T = SymExpr::symbol("T");
const SymExpr H = SymExpr::symbol("H");

TEST(SymExpr, CanonicalSumsOfProducts) {
  EXPECT_EQ((B * T).to_string(), "B*T");
  EXPECT_EQ(T * B, B * T);
  EXPECT_EQ((T + 1).to_string(), "T+1");
  EXPECT_EQ((SymExpr(1) + T).to_string(), "T+1");
  EXPECT_EQ((T - 1).to_string(), "T-1");
  EXPECT_EQ((SymExpr(4) - T).to_string(), "-T+4");
  EXPECT_EQ((T + T).to_string(), "2*T");
  EXPECT_EQ((T + B * T + 1 + B * T).to_string(), "2*B*T+T+1");
  EXPECT_EQ((B * (T + 1)).to_string(), "B*T+B");
  EXPECT_EQ((T * T).to_string(), "T*T");
  EXPECT_EQ((T - T).to_string(), "0");
  EXPECT_TRUE((T - T).is_constant());
  EXPECT_EQ((SymExpr(3) * 4).constant_value(), 12);
  EXPECT_EQ((-(B - T)).to_string(), "-B+T");
  EXPECT_FALSE(B == T);
  EXPECT_TRUE(B < T || T < B);
}

TEST(SymExpr, BareSymbol) {
  EXPECT_EQ(T.as_symbol(), "T");
  EXPECT_FALSE((T + 1).as_symbol());
  EXPECT_FALSE((T * 2).as_symbol());
  EXPECT_FALSE(SymExpr(3).as_symbol());
}

TEST(SymExpr, FloorDivision) {
  EXPECT_EQ(SymExpr::floor_div(T, 2).to_string(), "floor(T/2)");
  EXPECT_EQ(SymExpr::floor_div(T, 1), T);
  EXPECT_EQ(SymExpr::floor_div(2 * T + 1, 2), T);                     // remainder below the divisor drops
  EXPECT_EQ(SymExpr::floor_div(4 * T + 6, 2), 2 * T + 3);             // exact
  EXPECT_EQ(SymExpr::floor_div(2 * T, 4).to_string(), "floor(T/2)");  // common factor
  EXPECT_EQ(SymExpr::floor_div(SymExpr(-7), 2).constant_value(), -4);
  // Conv output size, kernel 3, stride 2, no padding: floor((H-3)/2)+1.
  SymExpr conv = SymExpr::floor_div(H - 3, 2) + 1;
  EXPECT_EQ(conv.to_string(), "floor((H+1)/2)-1");
  EXPECT_EQ(SymExpr::floor_div(T - 1, 2) + 1, SymExpr::floor_div(T + 1, 2));
  // Nested floors merge: floor(floor(T/2)/3) = floor(T/6).
  EXPECT_EQ(SymExpr::floor_div(SymExpr::floor_div(T, 2), 3).to_string(), "floor(T/6)");
  EXPECT_EQ(SymExpr::floor_div(SymExpr::floor_div(T, 2) + 1, 2).to_string(), "floor((T+2)/4)");
  EXPECT_EQ((SymExpr::floor_div(B * T, 2) * 2).to_string(), "2*floor(B*T/2)");
}

TEST(SymExpr, EvaluateAndSubstitute) {
  std::map<std::string, int64_t> b{{"B", 3}, {"T", 7}};
  EXPECT_EQ((B * T + 1).evaluate(b), 22);
  EXPECT_EQ((SymExpr::floor_div(T - 1, 2) + 1).evaluate(b), 4);
  EXPECT_EQ(SymExpr::floor_div(T - 10, 2).evaluate(b), -2);  // floor, not truncation
  EXPECT_FALSE((B * H).evaluate(b));
  EXPECT_EQ((B * H).substitute(b).to_string(), "3*H");
  EXPECT_EQ(SymExpr::floor_div(B * H, 2).substitute({{"B", 2}}), H);
  std::set<std::string> syms;
  (SymExpr::floor_div(B * T, 2) + H).collect_symbols(syms);
  EXPECT_EQ(syms, (std::set<std::string>{"B", "H", "T"}));
}

TEST(SymExpr, ExactDivision) {
  EXPECT_EQ(SymExpr::exact_div(16 * B * T, SymExpr(16)), B * T);
  EXPECT_EQ(SymExpr::exact_div(16 * B * T, 16 * T), B);
  EXPECT_EQ(SymExpr::exact_div(B * T + T, T), B + 1);
  EXPECT_EQ(SymExpr::exact_div(T + 1, T + 1), SymExpr(1));
  EXPECT_FALSE(SymExpr::exact_div(B * T, H));
  EXPECT_FALSE(SymExpr::exact_div(B * T + 1, T));
  EXPECT_FALSE(SymExpr::exact_div(6 * T, SymExpr(4)));
  EXPECT_FALSE(SymExpr::exact_div(T * T, T + 1));
  EXPECT_FALSE(SymExpr::exact_div(T, SymExpr(0)));
}

TEST(SymExpr, Guards) {
  ShapeGuard g{B * T, GuardRel::Eq, SymExpr(4096)};
  EXPECT_EQ(g.to_string(), "B*T == 4096");
  EXPECT_EQ(g.holds({{"B", 64}, {"T", 64}}), true);
  EXPECT_EQ(g.holds({{"B", 64}, {"T", 32}}), false);
  EXPECT_FALSE(g.holds({{"B", 64}}));
  ShapeGuard ge{T, GuardRel::Ge, SymExpr(1)};
  EXPECT_EQ(ge.to_string(), "T >= 1");
  EXPECT_EQ(ge.holds({{"T", 0}}), false);
}

TEST(Dim, ExpressionsAndArithmetic) {
  Dim b = Dim::symbol("B"), t = Dim::symbol("T");
  EXPECT_TRUE(b.is_symbol());
  Dim bt = b * t;
  EXPECT_TRUE(bt.is_symbolic());
  EXPECT_FALSE(bt.is_symbol());
  EXPECT_EQ(bt.to_string(), "B*T");
  EXPECT_EQ(bt.symbol_name(), "B*T");
  EXPECT_EQ(Dim(3) * Dim(4), Dim(12));
  EXPECT_TRUE((t - t).is_static());  // folds to a static 0
  EXPECT_EQ(t - t, Dim(0));
  EXPECT_EQ((t + Dim(1)).to_string(), "T+1");
  EXPECT_EQ(floor_div(Dim(7), 2), Dim(3));
  EXPECT_EQ(floor_div(t, 2).to_string(), "floor(T/2)");
  EXPECT_EQ(Dim(SymExpr(5)), Dim(5));
  Shape s({bt, t + Dim(1), floor_div(t, 2)});
  EXPECT_EQ(s.to_string(), "[B*T,T+1,floor(T/2)]");
  EXPECT_EQ(s.bind({{"B", 2}, {"T", 9}}), Shape({18, 10, 4}));
  EXPECT_EQ(s.bind({{"T", 9}}).to_string(), "[9*B,10,4]");
}

// Canonicalizing a long product or sum takes near-linear time. A chain of binary operations
// (how the parser read `B*B*...*B`) copied and re-sorted the growing product at every step:
// 10,000 factors took 5.4 s and 100,000 did not finish in a minute (about 400 s by its
// quadratic growth). With SymExpr::product and SymExpr::sum each test below takes 0.3 to
// 0.5 s of CPU time in the release build and about 6.5 s in the sanitized debug build. The
// bounds, on CPU time so that a loaded machine does not count, leave 6x and 5x of room.
constexpr int kManyOperands = 100000;
#ifdef KILN_SANITIZED
constexpr double kManyOperandsCpuSeconds = 30.0;
#else
constexpr double kManyOperandsCpuSeconds = 3.0;
#endif

double cpu_seconds_since(std::clock_t start) { return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC; }

std::string repeated(std::string_view first, std::string_view rest, int n) {
  std::string s(first);
  for (int i = 1; i < n; ++i) s += rest;
  return s;
}

TEST(SymExpr, ManyOperandsCanonicalizeInNearLinearTime) {
  const std::clock_t start = std::clock();
  const std::vector<SymExpr> bs(kManyOperands, B);
  const SymExpr product = SymExpr::product(bs);
  EXPECT_EQ(product.to_string(), repeated("B", "*B", kManyOperands));
  EXPECT_EQ(SymExpr::sum(bs).to_string(), std::to_string(kManyOperands) + "*B");
  // Distinct terms, and a product with a second symbol bound.
  std::vector<SymExpr> distinct;
  for (int i = 0; i < kManyOperands; ++i) distinct.push_back(SymExpr::symbol("S" + std::to_string(i)));
  EXPECT_EQ(SymExpr::sum(distinct).terms().size(), static_cast<size_t>(kManyOperands));
  EXPECT_EQ((product * T).substitute({{"T", 3}}).to_string(), "3*" + product.to_string());
  EXPECT_LT(cpu_seconds_since(start), kManyOperandsCpuSeconds);
}

// The same sizes written in a graph's text: the parser multiplies and adds at once.
TEST(SymExpr, LongDimExpressionsParseInNearLinearTime) {
  const std::string product = repeated("B", "*B", kManyOperands);
  const std::string sum = repeated("B", "+B", kManyOperands);
  const std::string text =
      "graph @g(%x: f32[" + product + "], %y: f32[" + sum + "]) -> (f32[" + product + "]) {\n  return %x\n}\n";
  const std::clock_t start = std::clock();
  auto g = parse_graph(text, "long.kir");
  ASSERT_TRUE(g) << g.error().to_string();
  EXPECT_EQ((*g)->input(0)->type().shape[0].to_string(), product);
  EXPECT_EQ((*g)->input(1)->type().shape[0].to_string(), std::to_string(kManyOperands) + "*B");
  EXPECT_LT(cpu_seconds_since(start), kManyOperandsCpuSeconds);
}

}  // namespace
}  // namespace kiln
