// LazyPatternSet (patterns/lazy_pattern_set.h): only the patterns whose required ops a graph
// holds are traced and applied; the rewrites equal the whole set's; a false required-op claim
// is a tracing error.
#include <gtest/gtest.h>

#include "kiln/kiln.h"
#include "patterns/attention_fusion.h"
#include "patterns/lazy_pattern_set.h"

namespace kiln {
namespace {

Replacement silu_pattern(std::vector<OpKind> required) {
  return Replacement{
      .name = "silu",
      .search = [](std::span<const Tensor> t,
                   std::span<const Scalar>) { return std::vector<Tensor>{sigmoid(t[0]) * t[0]}; },
      .replace = [](std::span<const Tensor> t, std::span<const Scalar>) { return std::vector<Tensor>{silu(t[0])}; },
      .example_inputs = {Tensor::zeros({2, 3})},
      .input_names = {"x"},
      .required_ops = std::move(required),
  };
}

Replacement exp_log_pattern() {
  return Replacement{
      .name = "exp_log",
      .search = [](std::span<const Tensor> t, std::span<const Scalar>) { return std::vector<Tensor>{log(exp(t[0]))}; },
      .replace = [](std::span<const Tensor> t, std::span<const Scalar>) { return std::vector<Tensor>{clone(t[0])}; },
      .example_inputs = {Tensor::zeros({2, 3})},
      .input_names = {"x"},
      .required_ops = {OpKind::Exp, OpKind::Log},
  };
}

std::unique_ptr<Graph> parse(const std::string& text) {
  auto g = parse_graph(text);
  EXPECT_TRUE(g) << g.error().to_string();
  return g ? std::move(*g) : nullptr;
}

const char* kSiluGraph = R"(graph @g(%x: f32[4]) -> (f32[4]) {
  %0 = sigmoid(%x) : f32[4]
  %1 = mul(%0, %x) : f32[4]
  return %1
})";

TEST(LazyPatternSet, SelectsOnlyPatternsWhoseRequiredOpsTheGraphHolds) {
  LazyPatternSet lazy("test", {silu_pattern({OpKind::Sigmoid, OpKind::Mul}), exp_log_pattern()});
  auto g = parse(kSiluGraph);
  auto set = lazy.set_for(*g);
  ASSERT_TRUE(set) << set.error().to_string();
  ASSERT_EQ((*set)->size(), 1);
  EXPECT_EQ((*set)->pattern(0).name, "silu");
  auto again = lazy.set_for(*g);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->get(), set->get());  // one set per distinct selection

  auto none = parse("graph @g(%x: f32[4]) -> (f32[4]) {\n  %0 = neg(%x) : f32[4]\n  return %0\n}");
  auto empty = lazy.set_for(*none);
  ASSERT_TRUE(empty);
  EXPECT_EQ((*empty)->size(), 0);
}

TEST(LazyPatternSet, RewritesAsTheWholeSet) {
  LazyPatternSet lazy("test", {silu_pattern({OpKind::Sigmoid, OpKind::Mul}), exp_log_pattern()});
  auto g = parse(kSiluGraph);
  auto r = lazy.apply(*g);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_NE(print_graph(*g).find("silu(%x)"), std::string::npos) << print_graph(*g);
}

TEST(LazyPatternSet, RequiredOpMissingFromTheTracedSearchGraphIsAnError) {
  LazyPatternSet lazy("test", {silu_pattern({OpKind::Sigmoid, OpKind::Mul, OpKind::Exp})});
  auto g = parse(R"(graph @g(%x: f32[4]) -> (f32[4]) {
  %0 = sigmoid(%x) : f32[4]
  %1 = mul(%0, %x) : f32[4]
  %2 = exp(%1) : f32[4]
  return %2
})");
  auto set = lazy.set_for(*g);
  ASSERT_FALSE(set);
  EXPECT_NE(set.error().to_string().find("pattern 'silu': required op 'exp' is not in the traced search graph"),
            std::string::npos)
      << set.error().to_string();
}

// Every attention variant's required ops are in its traced search graph (tracing checks them),
// and a graph with no softmax traces none of the 336.
TEST(LazyPatternSet, AttentionVariantsDeclareTheirOpsTruthfully) {
  for (const Replacement& r : attention_fusion_replacements()) {
    EXPECT_FALSE(r.required_ops.empty()) << r.name;
    auto p = trace_replacement(r);
    EXPECT_TRUE(p) << p.error().to_string();
  }
  LazyPatternSet lazy(kAttentionFusionSet, attention_fusion_replacements());
  auto g =
      parse("graph @g(%a: f32[4,4], %b: f32[4,4]) -> (f32[4,4]) {\n  %0 = matmul(%a, %b) : f32[4,4]\n  return %0\n}");
  auto set = lazy.set_for(*g);
  ASSERT_TRUE(set) << set.error().to_string();
  EXPECT_EQ((*set)->size(), 0);
}

}  // namespace
}  // namespace kiln
