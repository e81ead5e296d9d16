// Traced patterns (patterns/traced_pattern.h): tracing, the re-tracing extra_check with real
// shapes and scalar parameters, the demo-fusions set's numerics on the interpreter in float64,
// and the golden text of demo-fusions (tests/golden/demo_fusions.kpat), which must equal the
// freshly traced patterns and load back into a set that rewrites like the traced one.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kiln/kiln.h"
#include "passes/pattern_text.h"
#include "patterns/pattern_sets.h"

namespace kiln {
namespace {

const std::string kGolden = std::string(KILN_SOURCE_DIR) + "/tests/golden/demo_fusions.kpat";

std::unique_ptr<Graph> parse(const std::string& text) {
  auto g = parse_graph(text);
  EXPECT_TRUE(g) << g.error().to_string();
  return g ? std::move(*g) : nullptr;
}

std::string apply(const PatternSet& set, Graph& g) {
  auto r = apply_patterns(g, set);
  EXPECT_TRUE(r) << r.error().to_string();
  return print_graph(g);
}

// x * s + x -> x * (s + 1), s a scalar parameter.
Replacement scale_plus_one() {
  return Replacement{
      .name = "scale_plus_one",
      .search = [](std::span<const Tensor> t,
                   std::span<const Scalar> s) { return std::vector<Tensor>{t[0] * s[0] + t[0]}; },
      .replace = [](std::span<const Tensor> t,
                    std::span<const Scalar> s) { return std::vector<Tensor>{t[0] * Scalar(s[0].to_double() + 1.0)}; },
      .example_inputs = {Tensor::zeros({4})},
      .input_names = {"x"},
      .scalar_params = {{"s", 0.113377}},
  };
}

TEST(TracedPattern, ScalarParameterIsMatchedAndRetraced) {
  PatternSet set("scale");
  ASSERT_TRUE(register_replacement(set, scale_plus_one()));
  EXPECT_EQ(print_graph(*set.pattern(0).search), R"(graph @search(%x: f32[4]) -> (f32[4]) {
  %0 = mul(%x, 0.113377) : f32[4]
  %1 = add(%0, %x) : f32[4]
  return %1
}
)");
  auto g = parse(R"(graph @g(%a: f64[2,3]) -> (f64[2,3]) {
  %0 = mul(%a, 3.0) : f64[2,3]
  %1 = add(%a, %0) : f64[2,3]
  return %1
})");
  EXPECT_EQ(apply(set, *g), R"(graph @g(%a: f64[2,3]) -> (f64[2,3]) {
  %0 = mul(%a, 4.0) : f64[2,3]
  return %0
}
)");
}

// The first match ignores the reshape's size; the re-trace with the real shape decides.
TEST(TracedPattern, ShapeDependentPatternIsCheckedWithTheRealShapes) {
  PatternSet set("flatten");
  ASSERT_TRUE(
      register_replacement(set, Replacement{
                                    .name = "flatten_relu",
                                    .search =
                                        [](std::span<const Tensor> t, std::span<const Scalar>) {
                                          return std::vector<Tensor>{relu(t[0].reshape({t[0].size(0) * t[0].size(1)}))};
                                        },
                                    .replace =
                                        [](std::span<const Tensor> t, std::span<const Scalar>) {
                                          return std::vector<Tensor>{relu(t[0]).reshape({t[0].size(0) * t[0].size(1)})};
                                        },
                                    .example_inputs = {Tensor::zeros({2, 3})},
                                    .input_names = {"x"},
                                }));
  auto flat = parse(R"(graph @g(%a: f32[4,5]) -> (f32[20]) {
  %0 = reshape(%a) {shape=[20]} : f32[20]
  %1 = relu(%0) : f32[20]
  return %1
})");
  EXPECT_NE(apply(set, *flat).find("relu(%a) : f32[4,5]"), std::string::npos);
  auto not_flat = parse(R"(graph @g(%a: f32[4,5]) -> (f32[2,10]) {
  %0 = reshape(%a) {shape=[2, 10]} : f32[2,10]
  %1 = relu(%0) : f32[2,10]
  return %1
})");
  ASSERT_TRUE(not_flat);
  EXPECT_EQ(apply(set, *not_flat).find("relu(%a)"), std::string::npos);
  std::vector<std::string> lines = explain_matches(*not_flat, set);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("extra_check rejected"), std::string::npos) << lines[0];
}

TEST(TracedPattern, UserCheckRunsOnTheExactMatch) {
  Replacement r = demo_fusion_replacements()[0];
  r.extra_check = [](const Match& m) { return m.wildcards[0]->type().dtype == DType::F64; };
  PatternSet set("silu_f64");
  ASSERT_TRUE(register_replacement(set, r));
  const char* text = R"(graph @g(%a: DT[3]) -> (DT[3]) {
  %0 = sigmoid(%a) : DT[3]
  %1 = mul(%0, %a) : DT[3]
  return %1
})";
  auto replace_dt = [&](const std::string& dt) {
    std::string s = text;
    for (size_t at; (at = s.find("DT")) != std::string::npos;) s.replace(at, 2, dt);
    return s;
  };
  auto f64 = parse(replace_dt("f64"));
  auto f32 = parse(replace_dt("f32"));
  EXPECT_NE(apply(set, *f64).find("silu"), std::string::npos);
  EXPECT_EQ(apply(set, *f32).find("silu"), std::string::npos);
}

TEST(TracedPattern, TracingErrorsAreReported) {
  Replacement r = demo_fusion_replacements()[0];
  r.example_inputs = {Tensor::zeros({2}), Tensor::zeros({3})};  // search reads t[0] only
  PatternSet set("bad");
  Status unused = register_replacement(set, r);
  ASSERT_FALSE(unused);
  EXPECT_EQ(unused.error().message(), "pattern 'silu': search input %x1 is not used");

  Tensor constant = Tensor::full({2, 3}, 2.0);
  r = demo_fusion_replacements()[0];
  r.search = [constant](std::span<const Tensor> t, std::span<const Scalar>) {
    return std::vector<Tensor>{t[0] * constant};
  };
  Status lifted = register_replacement(set, r);
  ASSERT_FALSE(lifted);
  EXPECT_EQ(lifted.error().message(),
            "pattern 'silu': the search function reads a tensor that is not one of its inputs");

  Pattern other{.name = "other"};
  auto named = trace_replacement(demo_fusion_replacements()[0], &other);
  ASSERT_FALSE(named);
  EXPECT_EQ(named.error().message(), "pattern 'silu': the serialized pattern is named 'other'");
}

// A GraphTransform must keep the traced inputs and nodes first, and a replacement that takes
// fewer inputs than the transformed search graph must take some of its inputs.
TEST(TracedPattern, TransformErrorsAreReported) {
  auto graph_of = [](const char* text) {
    return [text](const Graph&) -> Expected<std::shared_ptr<const Graph>> {
      KILN_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, parse_graph(text));
      return std::shared_ptr<const Graph>(std::move(g));
    };
  };
  Replacement r = demo_fusion_replacements()[0];
  r.transform = graph_of(R"(graph @other(%x: f32[2,3]) -> (f32[2,3]) {
  %0 = relu(%x) : f32[2,3]
  return %0
})");
  PatternSet set("bad");
  Status reordered = register_replacement(set, r);
  ASSERT_FALSE(reordered);
  EXPECT_EQ(
      reordered.error().message(),
      "pattern 'silu': the transform of the search graph does not start with the traced graph's inputs and nodes");

  r.transform = [graph_of](const Graph& traced) -> Expected<std::shared_ptr<const Graph>> {
    if (traced.name() == "search")
      return graph_of(R"(graph @search(%x: f32[2,3], %extra: f32[2,3]) -> (f32[2,3]) {
  %0 = sigmoid(%x) : f32[2,3]
  %1 = mul(%0, %x) : f32[2,3]
  %2 = add(%1, %extra) : f32[2,3]
  return %2
})")(traced);
    return graph_of(R"(graph @replacement(%x: f32[2,3], %z: f32[2,3], %w: f32[2,3]) -> (f32[2,3]) {
  %0 = silu(%x) : f32[2,3]
  return %0
})")(traced);
  };
  Status foreign = register_replacement(set, r);
  ASSERT_FALSE(foreign);
  EXPECT_EQ(foreign.error().message(),
            "pattern 'silu': the replacement graph's inputs are not among the search graph's");
}

// The rewrites of demo-fusions compute what the ops they replace compute.
TEST(TracedPattern, DemoFusionsPreserveResultsInFloat64) {
  auto set = make_pattern_set("demo-fusions", demo_fusion_replacements());
  ASSERT_TRUE(set) << set.error().to_string();
  const std::string text = R"(graph @g(%x: f64[3,4], %w: f64[4,5], %b: f64[5]) -> (f64[3,5]) {
  %0 = mm(%x, %w) : f64[3,5]
  %1 = add(%b, %0) : f64[3,5]
  %2 = sigmoid(%1) : f64[3,5]
  %3 = mul(%1, %2) : f64[3,5]
  return %3
})";
  auto before = parse(text);
  auto after = parse(text);
  EXPECT_EQ(apply(**set, *after), R"(graph @g(%x: f64[3,4], %w: f64[4,5], %b: f64[5]) -> (f64[3,5]) {
  %0 = addmm(%b, %x, %w) : f64[3,5]
  %1 = silu(%0) : f64[3,5]
  return %1
}
)");
  std::vector<Tensor> inputs = {Tensor::randn({3, 4}, 1, DType::F64), Tensor::randn({4, 5}, 2, DType::F64),
                                Tensor::randn({5}, 3, DType::F64)};
  auto expected = interpret(*before, inputs);
  auto actual = interpret(*after, inputs);
  ASSERT_TRUE(expected && actual);
  for (int64_t i = 0; i < 15; ++i) EXPECT_NEAR((*actual)[0].item_double(i), (*expected)[0].item_double(i), 1e-14) << i;
}

std::string read_golden() {
  std::ifstream in(kGolden);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(TracedPattern, GoldenTextEqualsFreshlyTracedPatterns) {
  auto fresh = make_pattern_set("demo-fusions", demo_fusion_replacements());
  ASSERT_TRUE(fresh) << fresh.error().to_string();
  auto text = print_patterns(**fresh);
  ASSERT_TRUE(text) << text.error().to_string();
  EXPECT_EQ(*text, read_golden()) << "regenerate " << kGolden << " from print_patterns if the change is intended";
}

TEST(TracedPattern, LoadedPatternsPrintAndRewriteLikeTracedOnes) {
  auto loaded = parse_patterns(read_golden(), kGolden);
  ASSERT_TRUE(loaded) << loaded.error().to_string();
  auto from_text = make_pattern_set("demo-fusions", demo_fusion_replacements(), &*loaded);
  auto fresh = make_pattern_set("demo-fusions", demo_fusion_replacements());
  ASSERT_TRUE(from_text && fresh);
  EXPECT_EQ(*print_patterns(**from_text), *print_patterns(**fresh));
  const std::string text = R"(graph @g(%x: f32[B,4], %w: f32[4,5], %b: f32[5]) -> (f32[B,5]) {
  %0 = mm(%x, %w) : f32[B,5]
  %1 = add(%0, %b) : f32[B,5]
  %2 = sigmoid(%1) : f32[B,5]
  %3 = mul(%2, %1) : f32[B,5]
  return %3
})";
  auto a = parse(text);
  auto b = parse(text);
  EXPECT_EQ(apply(**from_text, *a), apply(**fresh, *b));
  EXPECT_NE(print_graph(*a).find("silu"), std::string::npos);
}

}  // namespace
}  // namespace kiln
