// The pattern matcher engine (passes/pattern.h) on patterns written as IR text: plain
// replacement, commutative operand order, wildcards bound twice, the multi-user rule,
// ignored literals with an extra_check, attributes, multi-output patterns, repeated
// application, mutation regions, explain_matches and linear scaling (counted node visits).
#include <gtest/gtest.h>

#include "ir/parser.h"
#include "ir/printer.h"
#include "passes/pattern.h"
#include "passes/pattern_text.h"

namespace kiln {
namespace {

std::shared_ptr<const Graph> graph(const std::string& text) {
  auto g = parse_graph(text);
  EXPECT_TRUE(g) << g.error().to_string();
  return g ? std::shared_ptr<const Graph>(std::move(*g)) : nullptr;
}

std::unique_ptr<Graph> target(const std::string& text) {
  auto g = parse_graph(text);
  EXPECT_TRUE(g) << g.error().to_string();
  return g ? std::move(*g) : nullptr;
}

Pattern rewrite(std::string name, const std::string& search, const std::string& replacement) {
  return Pattern{.name = std::move(name), .search = graph(search), .replacement = graph(replacement)};
}

const char* kSiluSearch = R"(graph @search(%x: f32[4]) -> (f32[4]) {
  %0 = sigmoid(%x) : f32[4]
  %1 = mul(%0, %x) : f32[4]
  return %1
})";
const char* kSiluReplacement = R"(graph @replacement(%x: f32[4]) -> (f32[4]) {
  %0 = silu(%x) : f32[4]
  return %0
})";

PatternSet silu_set() {
  PatternSet set("silu");
  EXPECT_TRUE(set.add(rewrite("silu", kSiluSearch, kSiluReplacement)));
  return set;
}

std::string run(const PatternSet& set, Graph& g, const PatternApplyOptions& options = {}, PassResult* out = nullptr) {
  auto r = apply_patterns(g, set, options);
  EXPECT_TRUE(r) << r.error().to_string();
  if (r && out) *out = *r;
  return print_graph(g);
}

TEST(PatternMatcher, PlainMatchIsReplaced) {
  auto g = target(R"(graph @g(%a: f32[4]) -> (f32[4]) {
  %0 = exp(%a) : f32[4]
  %1 = sigmoid(%0) : f32[4]
  %2 = mul(%1, %0) : f32[4]
  return %2
})");
  PassResult r;
  EXPECT_EQ(run(silu_set(), *g, {}, &r), R"(graph @g(%a: f32[4]) -> (f32[4]) {
  %0 = exp(%a) : f32[4]
  %1 = silu(%0) : f32[4]
  return %1
}
)");
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.counters["pattern.silu"], 1);
  EXPECT_EQ(r.counters["matches"], 1);
}

TEST(PatternMatcher, CommutativeOpsMatchEitherOperandOrder) {
  auto g = target(R"(graph @g(%a: f32[4]) -> (f32[4]) {
  %0 = sigmoid(%a) : f32[4]
  %1 = mul(%a, %0) : f32[4]
  return %1
})");
  EXPECT_NE(run(silu_set(), *g).find("silu(%a)"), std::string::npos);

  // add(matmul(a, b), c) also matches `mask + scores`; sub is not commutative.
  PatternSet set("addmm");
  ASSERT_TRUE(set.add(rewrite("addmm", R"(graph @s(%a: f32[2,3], %b: f32[3,4], %c: f32[2,4]) -> (f32[2,4]) {
  %0 = mm(%a, %b) : f32[2,4]
  %1 = add(%0, %c) : f32[2,4]
  return %1
})",
                              R"(graph @r(%a: f32[2,3], %b: f32[3,4], %c: f32[2,4]) -> (f32[2,4]) {
  %0 = addmm(%c, %a, %b) : f32[2,4]
  return %0
})")));
  auto h = target(R"(graph @h(%q: f32[2,3], %k: f32[3,4], %mask: f32[2,4]) -> (f32[2,4]) {
  %0 = mm(%q, %k) : f32[2,4]
  %1 = add(%mask, %0) : f32[2,4]
  return %1
})");
  EXPECT_NE(run(set, *h).find("addmm(%mask, %q, %k)"), std::string::npos);
  auto scaled = target(R"(graph @h(%q: f32[2,3], %k: f32[3,4], %mask: f32[2,4]) -> (f32[2,4]) {
  %0 = mm(%q, %k) : f32[2,4]
  %1 = add(%mask, %0) {alpha=2} : f32[2,4]
  return %1
})");
  EXPECT_EQ(run(set, *scaled).find("addmm"), std::string::npos);  // alpha != 1: not commutative (nor equal)

  PatternSet sub("sub");
  ASSERT_TRUE(sub.add(rewrite("sub_relu", R"(graph @s(%x: f32[4], %y: f32[4]) -> (f32[4]) {
  %0 = relu(%x) : f32[4]
  %1 = sub(%0, %y) : f32[4]
  return %1
})",
                              R"(graph @r(%x: f32[4], %y: f32[4]) -> (f32[4]) {
  %0 = sub(%x, %y) : f32[4]
  return %0
})")));
  auto swapped = target(R"(graph @h(%a: f32[4], %b: f32[4]) -> (f32[4]) {
  %0 = relu(%a) : f32[4]
  %1 = sub(%b, %0) : f32[4]
  return %1
})");
  EXPECT_NE(run(sub, *swapped).find("relu"), std::string::npos);
}

TEST(PatternMatcher, WildcardBoundTwiceMustBindOneValue) {
  PatternSet set("double");
  ASSERT_TRUE(set.add(rewrite("double", R"(graph @s(%x: f32[4]) -> (f32[4]) {
  %0 = add(%x, %x) : f32[4]
  return %0
})",
                              R"(graph @r(%x: f32[4]) -> (f32[4]) {
  %0 = mul(%x, 2.0) : f32[4]
  return %0
})")));
  auto same = target(R"(graph @g(%a: f32[4]) -> (f32[4]) {
  %0 = add(%a, %a) : f32[4]
  return %0
})");
  EXPECT_NE(run(set, *same).find("mul(%a, 2.0)"), std::string::npos);
  auto different = target(R"(graph @g(%a: f32[4], %b: f32[4]) -> (f32[4]) {
  %0 = add(%a, %b) : f32[4]
  return %0
})");
  EXPECT_EQ(run(set, *different).find("mul"), std::string::npos);
  std::vector<std::string> lines = explain_matches(*different, set);
  ASSERT_EQ(lines.size(), 1u);
  // Both operand orders fail; the first order's reason is reported.
  EXPECT_EQ(lines[0],
            "pattern 'double' does not match %0 = add(%a, %b) : f32[4]: operand 1 of %0: wildcard %x is "
            "bound to %a, found %b");
}

TEST(PatternMatcher, InteriorNodeWithOutsideUserIsRejected) {
  auto g = target(R"(graph @g(%a: f32[4]) -> (f32[4], f32[4]) {
  %0 = sigmoid(%a) : f32[4]
  %1 = mul(%0, %a) : f32[4]
  %2 = exp(%0) : f32[4]
  return %1, %2
})");
  const PatternSet set = silu_set();
  EXPECT_EQ(run(set, *g).find("silu"), std::string::npos);
  std::vector<std::string> lines = explain_matches(*g, set);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "pattern 'silu' does not match %1 = mul(%0, %a) : f32[4]: interior node %0 has a user outside "
            "the match: %2 = exp(%0) : f32[4]");

  auto as_output = target(R"(graph @g(%a: f32[4]) -> (f32[4], f32[4]) {
  %0 = sigmoid(%a) : f32[4]
  %1 = mul(%0, %a) : f32[4]
  return %1, %0
})");
  EXPECT_EQ(run(set, *as_output).find("silu"), std::string::npos);
  EXPECT_NE(explain_matches(*as_output, set)[0].find("interior node %0 is an output of the graph"), std::string::npos);
}

TEST(PatternMatcher, InteriorNodeThatIsAPatternOutputMayHaveOtherUsers) {
  PatternSet set("silu_keep_sigmoid");
  ASSERT_TRUE(set.add(rewrite("silu_keep_sigmoid", R"(graph @s(%x: f32[4]) -> (f32[4], f32[4]) {
  %0 = sigmoid(%x) : f32[4]
  %1 = mul(%0, %x) : f32[4]
  return %1, %0
})",
                              R"(graph @r(%x: f32[4]) -> (f32[4], f32[4]) {
  %0 = silu(%x) : f32[4]
  %1 = sigmoid(%x) : f32[4]
  return %0, %1
})")));
  auto g = target(R"(graph @g(%a: f32[4]) -> (f32[4], f32[4]) {
  %0 = sigmoid(%a) : f32[4]
  %1 = mul(%0, %a) : f32[4]
  %2 = exp(%0) : f32[4]
  return %1, %2
})");
  EXPECT_EQ(run(set, *g), R"(graph @g(%a: f32[4]) -> (f32[4], f32[4]) {
  %0 = silu(%a) : f32[4]
  %1 = sigmoid(%a) : f32[4]
  %2 = exp(%1) : f32[4]
  return %0, %2
}
)");
}

// div(x, c) -> mul(x, 1/c) for any literal c except 0: the first match ignores the literal,
// the extra_check reads it.
PatternSet reciprocal_set() {
  PatternSet set("div_to_mul");
  Pattern p{.name = "div_to_mul", .search = graph(R"(graph @s(%x: f32[4]) -> (f32[4]) {
  %0 = div(%x, 2.0) : f32[4]
  return %0
})")};
  p.ignore_literals = true;
  p.replace = [](GraphBuilder& b, const Match& m) {
    return std::vector<Value*>{b.apply1(OpKind::Mul, {m.wildcards[0], Scalar(1.0 / m.literals[0].value.as_float())})};
  };
  p.extra_check = [](Match& m) { return m.literals.size() == 1 && m.literals[0].value.as_float() != 0.0; };
  EXPECT_TRUE(set.add(std::move(p)));
  return set;
}

TEST(PatternMatcher, IgnoredLiteralIsReportedAndExtraCheckDecides) {
  const PatternSet set = reciprocal_set();
  auto g = target(R"(graph @g(%a: f32[4]) -> (f32[4], f32[4]) {
  %0 = div(%a, 4.0) : f32[4]
  %1 = div(%a, 0.0) : f32[4]
  return %0, %1
})");
  std::string printed = run(set, *g);
  EXPECT_NE(printed.find("mul(%a, 0.25)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("div(%a, 0.0)"), std::string::npos) << printed;
  std::vector<std::string> lines = explain_matches(*g, set);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "pattern 'div_to_mul' does not match %1 = div(%a, 0.0) : f32[4]: extra_check rejected");
}

TEST(PatternMatcher, LiteralsAndAttributesCompareUnlessIgnored) {
  const std::string search = R"(graph @s(%x: f32[2,3]) -> (f32[2]) {
  %0 = sum(%x) {dim=[1]} : f32[2]
  return %0
})";
  const std::string replacement = R"(graph @r(%x: f32[2,3]) -> (f32[2]) {
  %0 = mean(%x) {dim=[1]} : f32[2]
  %1 = mul(%0, 3.0) : f32[2]
  return %1
})";
  PatternSet exact("exact");
  ASSERT_TRUE(exact.add(rewrite("sum_dim1", search, replacement)));
  auto g = target(R"(graph @g(%a: f32[3,3]) -> (f32[3]) {
  %0 = sum(%a) {dim=[0]} : f32[3]
  return %0
})");
  std::vector<std::string> lines = explain_matches(*g, exact);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "pattern 'sum_dim1' does not match %0 = sum(%a) {dim=[0]} : f32[3]: %0: attribute dim: "
            "expected [1], found [0]");

  PatternSet loose("loose");
  Pattern p = rewrite("sum_any_dim", search, replacement);
  p.ignore_literals = true;
  p.extra_check = [](Match& m) {
    return m.literals.size() == 1 && m.literals[0].attr == "dim" &&
           m.literals[0].value == AttrValue(AttrValue::Ints{0});
  };
  ASSERT_TRUE(loose.add(std::move(p)));
  auto found = match_pattern(loose, 0, g->nodes()[0]);
  ASSERT_TRUE(found);
  ASSERT_EQ(found->literals.size(), 1u);
  EXPECT_EQ(found->literals[0].value.to_string(), "[0]");
  EXPECT_EQ(found->literals[0].pattern_value.to_string(), "[1]");

  // A literal operand compares by value and kind.
  auto lit = target(R"(graph @g(%a: f32[4]) -> (f32[4]) {
  %0 = div(%a, 3.0) : f32[4]
  return %0
})");
  PatternSet div2("div2");
  ASSERT_TRUE(div2.add(rewrite("halve", R"(graph @s(%x: f32[4]) -> (f32[4]) {
  %0 = div(%x, 2.0) : f32[4]
  return %0
})",
                               R"(graph @r(%x: f32[4]) -> (f32[4]) {
  %0 = mul(%x, 0.5) : f32[4]
  return %0
})")));
  lines = explain_matches(*lit, div2);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("operand 1 of %0: expected literal 2.0, found 3.0"), std::string::npos) << lines[0];
}

TEST(PatternMatcher, ExplainNamesTheFirstMismatchedOperand) {
  auto g = target(R"(graph @g(%a: f32[4]) -> (f32[4]) {
  %0 = relu(%a) : f32[4]
  %1 = div(%a, 2.0) : f32[4]
  %2 = mul(%1, %0) : f32[4]
  return %2
})");
  std::vector<std::string> lines = explain_matches(*g, silu_set());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "pattern 'silu' does not match %2 = mul(%1, %0) : f32[4]: operand 0 of %2: expected sigmoid, "
            "found div at %1 = div(%a, 2.0) : f32[4]");
  // Nodes of other ops, and nodes that match, are not explained.
  auto ok = target(R"(graph @g(%a: f32[4]) -> (f32[4]) {
  %0 = sigmoid(%a) : f32[4]
  %1 = mul(%0, %a) : f32[4]
  return %1
})");
  EXPECT_TRUE(explain_matches(*ok, silu_set()).empty());
}

TEST(PatternMatcher, AppliesUntilNothingMatches) {
  PatternSet set("relu_relu");
  ASSERT_TRUE(set.add(rewrite("relu_relu", R"(graph @s(%x: f32[4]) -> (f32[4]) {
  %0 = relu(%x) : f32[4]
  %1 = relu(%0) : f32[4]
  return %1
})",
                              R"(graph @r(%x: f32[4]) -> (f32[4]) {
  %0 = relu(%x) : f32[4]
  return %0
})")));
  const std::string text = R"(graph @g(%a: f32[4]) -> (f32[4]) {
  %0 = relu(%a) : f32[4]
  %1 = relu(%0) : f32[4]
  %2 = relu(%1) : f32[4]
  %3 = relu(%2) : f32[4]
  return %3
})";
  auto g = target(text);
  PassResult r;
  EXPECT_EQ(run(set, *g, {}, &r), R"(graph @g(%a: f32[4]) -> (f32[4]) {
  %0 = relu(%a) : f32[4]
  return %0
}
)");
  EXPECT_EQ(r.counters["pattern.relu_relu"], 3);
  EXPECT_EQ(r.counters["iterations"], 3);

  auto bounded = target(text);
  auto once = apply_patterns(*bounded, set, {.max_iterations = 1, .must_converge = true});
  ASSERT_FALSE(once);
  EXPECT_EQ(once.error().message(), "pattern set 'relu_relu' did not converge on graph @g after 1 sweeps");
}

TEST(PatternMatcher, MatchMayNotSpanAnInPlaceNode) {
  auto g = target(R"(graph @g(%a: f32[4], %b: f32[4]) -> (f32[4]) {
  %0 = sigmoid(%a) : f32[4]
  %1 = add_(%a, %b) : f32[4]
  %2 = mul(%0, %a) : f32[4]
  return %2
})");
  const PatternSet set = silu_set();
  EXPECT_EQ(run(set, *g).find("silu"), std::string::npos);
  std::vector<std::string> lines = explain_matches(*g, set);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("the matched nodes span an in-place node"), std::string::npos) << lines[0];
}

TEST(PatternMatcher, SetRejectsMalformedAndDuplicatePatterns) {
  PatternSet set("s");
  ASSERT_TRUE(set.add(rewrite("silu", kSiluSearch, kSiluReplacement)));
  Status dup_name = set.add(rewrite("silu", kSiluSearch, kSiluReplacement));
  ASSERT_FALSE(dup_name);
  EXPECT_EQ(dup_name.error().message(), "pattern 'silu': a pattern of that name is already in set 's'");
  Status dup_search = set.add(rewrite("silu2", kSiluSearch, kSiluReplacement));
  ASSERT_FALSE(dup_search);
  EXPECT_EQ(dup_search.error().message(), "pattern 'silu2': has the same search graph as pattern 'silu'");
  Status unused = set.add(rewrite("unused", R"(graph @s(%x: f32[4], %y: f32[4]) -> (f32[4]) {
  %0 = exp(%x) : f32[4]
  return %0
})",
                                  R"(graph @r(%x: f32[4], %y: f32[4]) -> (f32[4]) {
  %0 = exp(%x) : f32[4]
  return %0
})"));
  ASSERT_FALSE(unused);
  EXPECT_EQ(unused.error().message(), "pattern 'unused': search input %y is not used");
  Status input_output = set.add(rewrite("identity", R"(graph @s(%x: f32[4]) -> (f32[4]) {
  return %x
})",
                                        R"(graph @r(%x: f32[4]) -> (f32[4]) {
  return %x
})"));
  ASSERT_FALSE(input_output);
  EXPECT_EQ(input_output.error().message(), "pattern 'identity': search output 0 is an input, not a node");
  Status both = set.add(Pattern{.name = "both",
                                .search = graph(kSiluSearch),
                                .replacement = graph(kSiluReplacement),
                                .replace = [](GraphBuilder&, const Match&) { return std::vector<Value*>{}; }});
  ASSERT_FALSE(both);
  EXPECT_EQ(both.error().message(),
            "pattern 'both': needs exactly one of a replacement graph and a replacement callback");
}

// One sweep compares a bounded number of nodes per candidate, so the work doubles with the
// graph: counted, not timed.
TEST(PatternMatcher, NodeVisitsGrowLinearlyWithTheGraph) {
  auto chain = [](int blocks) {
    std::string text = "graph @g(%a: f32[4]) -> (f32[4]) {\n";
    std::string last = "%a";
    int n = 0;
    for (int i = 0; i < blocks; ++i) {
      text += "  %" + std::to_string(n) + " = sigmoid(" + last + ") : f32[4]\n";
      text += "  %" + std::to_string(n + 1) + " = mul(%" + std::to_string(n) + ", " + last + ") : f32[4]\n";
      text += "  %" + std::to_string(n + 2) + " = mul(%" + std::to_string(n + 1) + ", 2.0) : f32[4]\n";
      last = "%" + std::to_string(n + 2);
      n += 3;
    }
    return text + "  return " + last + "\n}";
  };
  const PatternSet set = silu_set();
  auto small = target(chain(500));
  auto large = target(chain(1000));
  PassResult rs, rl;
  run(set, *small, {}, &rs);
  run(set, *large, {}, &rl);
  EXPECT_EQ(rs.counters["pattern.silu"], 500);
  EXPECT_EQ(rl.counters["pattern.silu"], 1000);
  EXPECT_EQ(rl.counters["node_visits"], 2 * rs.counters["node_visits"]);
}

TEST(PatternText, PrintsAndParsesBack) {
  PatternSet set = silu_set();
  Pattern p = rewrite("halve", R"(graph @search(%x: f32[4]) -> (f32[4]) {
  %0 = div(%x, 0.113377) : f32[4]
  return %0
})",
                      R"(graph @replacement(%x: f32[4]) -> (f32[4]) {
  %0 = mul(%x, 0.5) : f32[4]
  return %0
})");
  p.ignore_literals = true;
  p.scalar_params = {{"divisor", 0.113377}};
  ASSERT_TRUE(set.add(std::move(p)));
  auto text = print_patterns(set);
  ASSERT_TRUE(text) << text.error().to_string();
  auto parsed = parse_patterns(*text);
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  PatternSet back("silu");
  for (Pattern& q : *parsed) ASSERT_TRUE(back.add(std::move(q)));
  auto again = print_patterns(back);
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *text);
  EXPECT_NE(text->find("pattern halve wildcards=x ignore_literals=true scalars=divisor:0.113377\n"), std::string::npos);
}

TEST(PatternText, ParseErrorsNameTheLine) {
  auto stray = parse_patterns("// comment\ngraph @g() -> () {\n  return\n}\n", "p.txt");
  ASSERT_FALSE(stray);
  EXPECT_EQ(stray.error().to_string(), "p.txt:2:1: error: expected a line 'pattern NAME ...' before the graphs");
  auto field = parse_patterns("pattern p colour=red\n", "p.txt");
  ASSERT_FALSE(field);
  EXPECT_EQ(field.error().message(), "pattern 'p': unknown header field 'colour=red'");
  auto one = parse_patterns(std::string("pattern p wildcards=x\n") + kSiluSearch + "\n", "p.txt");
  ASSERT_FALSE(one);
  EXPECT_EQ(one.error().message(), "pattern 'p': expected a search graph and a replacement graph, found 1 graphs");
  auto names = parse_patterns(std::string("pattern p wildcards=y\n") + kSiluSearch + "\n" + kSiluReplacement + "\n");
  ASSERT_FALSE(names);
  EXPECT_EQ(names.error().message(), "pattern 'p': wildcards=y but the search graph's inputs are x");
  auto scalar = parse_patterns("pattern p scalars=a:zz\n");
  ASSERT_FALSE(scalar);
  EXPECT_EQ(scalar.error().message(), "pattern 'p': bad scalar parameter 'a:zz'");
  auto flag = parse_patterns("pattern p ignore_literals=maybe\n");
  ASSERT_FALSE(flag);
  EXPECT_EQ(flag.error().message(), "pattern 'p': ignore_literals must be true or false");
  for (const char* bad : {"-1", "x", "", "3x"}) {
    auto nodes = parse_patterns(std::string("pattern p scalar_nodes=") + bad + "\n");
    ASSERT_FALSE(nodes) << bad;
    EXPECT_EQ(nodes.error().message(), std::string("pattern 'p': scalar_nodes must be a count, found '") + bad + "'");
  }
}

}  // namespace
}  // namespace kiln
