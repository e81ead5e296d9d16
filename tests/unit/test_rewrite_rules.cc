// The shared rule driver: rewrites to a fixed point, counts rules, recurses into subgraphs,
// and reports a rule set that never converges when asked to.
#include <gtest/gtest.h>

#include "graph_text.h"
#include "ir/printer.h"
#include "passes/rewrite_rules.h"

namespace kiln {
namespace {

// mul(x, 1) -> x
RewriteRule mul_by_one() {
  return {"mul_by_one", {OpKind::Mul}, [](Node& n, GraphBuilder&) -> std::optional<std::vector<Value*>> {
            const Operand& rhs = n.operand(1);
            if (rhs.is_value() || rhs.literal.to_double() != 1.0) return std::nullopt;
            if (n.operand(0).value->type() != n.result()->type()) return std::nullopt;
            return std::vector<Value*>{n.operand(0).value};
          }};
}

TEST(RewriteRules, RewritesChainsToAFixedPoint) {
  auto g = parse_or_fail(R"(graph @g(%x: f32[4]) -> (f32[4]) {
  %0 = mul(%x, 1) : f32[4]
  %1 = mul(%0, 1) : f32[4]
  %2 = mul(%1, 2) : f32[4]
  return %2
})");
  auto r = apply_rules(*g, {"test", {mul_by_one()}}, {.must_converge = true});
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_TRUE(r->changed);
  EXPECT_EQ(r->counters["rewrites"], 2);
  EXPECT_EQ(r->counters["rule.mul_by_one"], 2);
  EXPECT_EQ(r->counters["iterations"], 2);  // one sweep that rewrites, one that finds nothing
  EXPECT_EQ(print_graph(*g), R"(graph @g(%x: f32[4]) -> (f32[4]) {
  %0 = mul(%x, 2) : f32[4]
  return %0
}
)");
}

TEST(RewriteRules, RewritesInsideSubgraphs) {
  auto g = parse_or_fail(R"(graph @g(%p: bool[], %x: f32[4]) -> (f32[4]) {
  %0 = cond(%p, %x) : f32[4] {
    true_fn = graph(%a: f32[4]) -> (f32[4]) {
      %0 = mul(%a, 1) : f32[4]
      return %0
    }
    false_fn = graph(%a: f32[4]) -> (f32[4]) {
      %0 = neg(%a) : f32[4]
      return %0
    }
  }
  return %0
})");
  auto r = apply_rules(*g, {"test", {mul_by_one()}});
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_EQ(r->counters["rule.mul_by_one"], 1);
  EXPECT_EQ(print_graph(*g).find("mul("), std::string::npos);
}

TEST(RewriteRules, NonConvergingRuleSetIsAnErrorWhenConvergenceIsRequired) {
  // neg(x) -> neg(neg(neg(x))): every sweep makes new neg nodes.
  RewriteRule grow{"grow", {OpKind::Neg}, [](Node& n, GraphBuilder& b) -> std::optional<std::vector<Value*>> {
                     Value* once = b.apply1(OpKind::Neg, {n.operand(0).value});
                     Value* twice = b.apply1(OpKind::Neg, {once});
                     return std::vector<Value*>{b.apply1(OpKind::Neg, {twice})};
                   }};
  auto g = parse_or_fail(R"(graph @g(%x: f32[4]) -> (f32[4]) {
  %0 = neg(%x) : f32[4]
  return %0
})");
  auto strict = apply_rules(*g, {"grower", {grow}}, {.max_iterations = 3, .must_converge = true});
  ASSERT_FALSE(strict.has_value());
  EXPECT_EQ(strict.error().message(), "rule set grower did not converge on graph @g after 3 iterations");
  auto lenient = apply_rules(*g, {"grower", {grow}}, {.max_iterations = 2});
  ASSERT_TRUE(lenient.has_value());
  EXPECT_EQ(lenient->counters["iterations"], 2);
}

}  // namespace
}  // namespace kiln
