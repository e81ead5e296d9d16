// The random-graph fuzzer's generator (fuzz/graph_generator.h): every op of ops.def but the
// listed exclusions is drawn within a few hundred seeds (the check that keeps the table and
// the generator in step), drawn graphs verify and print back, one seed gives one graph, and
// any bytes give a graph (the libFuzzer entry point's source of choices).
#include <gtest/gtest.h>

#include <set>

#include "autograd/derivative.h"
#include "fuzz/choices.h"
#include "fuzz/gradient_check.h"
#include "fuzz/graph_generator.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "ops/op_info.h"

namespace kiln::fuzz {
namespace {

void collect_ops(const Graph& g, std::set<OpKind>& seen) {
  for (const Node* n : g.nodes()) {
    seen.insert(n->op());
    for (int i = 0; i < n->num_subgraphs(); ++i) collect_ops(*n->subgraph(i), seen);
  }
}

std::set<OpKind> ops_drawn(const GeneratorOptions& options, uint64_t seeds) {
  std::set<OpKind> seen;
  for (uint64_t seed = 0; seed < seeds; ++seed) {
    SeededChoices c(seed);
    collect_ops(*generate_graph(c, options), seen);
  }
  return seen;
}

bool is_excluded(OpKind op) {
  for (const ExcludedOp& e : excluded_ops())
    if (e.op == op) return true;
  return false;
}

TEST(FuzzGenerator, DrawsEveryOpButTheExclusions) {
  const std::set<OpKind> seen = ops_drawn({}, 600);
  for (const OpInfo& info : all_ops()) {
    if (is_excluded(info.kind))
      EXPECT_FALSE(seen.count(info.kind)) << info.name() << " is excluded but drawn";
    else
      EXPECT_TRUE(seen.count(info.kind)) << info.name()
                                         << " is never drawn: give it a recipe (fuzz/op_recipes.h) or "
                                            "an exclusion with its reason (fuzz/graph_generator.cc)";
  }
}

TEST(FuzzGenerator, DifferentiableGraphsDrawEveryOpWithADerivativeRule) {
  const GeneratorOptions options = differentiable_options();
  const std::set<OpKind> seen = ops_drawn(options, 600);
  for (const OpInfo& info : all_ops()) {
    const bool rule = derivative_info(info.kind).kind == Differentiability::Rule;
    if (is_excluded(info.kind) || !rule) continue;
    EXPECT_TRUE(seen.count(info.kind)) << info.name() << " has a derivative rule but is never drawn";
  }
}

TEST(FuzzGenerator, GraphsVerifyAndPrintBack) {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    SeededChoices c(seed);
    std::unique_ptr<Graph> g = generate_graph(c);
    Status s = verify_graph(*g);
    ASSERT_TRUE(s) << "seed " << seed << ": " << s.error().to_string() << "\n" << print_graph(*g);
    const std::string text = print_graph(*g);
    auto parsed = parse_graph(text);
    ASSERT_TRUE(parsed) << "seed " << seed << ": " << parsed.error().to_string() << "\n" << text;
    EXPECT_EQ(print_graph(**parsed), text) << "seed " << seed;
  }
}

TEST(FuzzGenerator, OneSeedOneGraph) {
  SeededChoices a(42), b(42), c(43);
  const std::string text = print_graph(*generate_graph(a));
  EXPECT_EQ(print_graph(*generate_graph(b)), text);
  EXPECT_NE(print_graph(*generate_graph(c)), text);
}

TEST(FuzzGenerator, AnyBytesGiveAGraph) {
  const std::vector<std::vector<uint8_t>> inputs = {
      {}, {0xff}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, std::vector<uint8_t>(300, 0xa5)};
  for (const std::vector<uint8_t>& bytes : inputs) {
    ByteChoices c(bytes);
    std::unique_ptr<Graph> g = generate_graph(c);
    EXPECT_TRUE(verify_graph(*g)) << print_graph(*g);
    EXPECT_FALSE(g->outputs().empty());
  }
}

TEST(FuzzChoices, ByteChoicesReadBytesAndThenZeros) {
  const std::vector<uint8_t> bytes = {7, 1, 2};
  ByteChoices c(bytes);
  EXPECT_EQ(c.below(10), 7u);      // one byte for a bound below 256
  EXPECT_EQ(c.below(1000), 258u);  // two bytes: 0x0102
  EXPECT_EQ(c.below(10), 0u);      // exhausted
  SeededChoices s(1);
  for (int i = 0; i < 100; ++i) EXPECT_LT(s.between(-3, 3) + 3, 7);
}

TEST(FuzzGenerator, DifferentiableGraphsHaveOnlyF64Inputs) {
  const GeneratorOptions options = differentiable_options();
  for (uint64_t seed = 0; seed < 50; ++seed) {
    SeededChoices c(seed);
    std::unique_ptr<Graph> g = generate_graph(c, options);
    for (const Value* in : g->inputs()) {
      if (is_floating(in->type().dtype)) {
        EXPECT_EQ(in->type().dtype, DType::F64) << print_graph(*g);
      }
    }
  }
}

}  // namespace
}  // namespace kiln::fuzz
