// ir + passes: shape guards on graphs (clone keeps them, erase drops them) and
// propagate_shapes on graphs built in C++ (fresh symbols, idempotence, errors).
#include <gtest/gtest.h>

#include <string>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/dce.h"
#include "passes/propagate_shapes.h"

namespace kiln {
namespace {

constexpr const char* kGuarded = R"(graph @g(%x: f32[B,T,16]) -> (f32[B*T,16]) {
  %0 = reshape(%x) {shape=[4096, 16]} : f32[4096,16]
  %1 = flatten(%x) {end_dim=1} : f32[B*T,16]
  guard B*T == 4096 for %0
  return %1
}
)";

TEST(ShapeGuards, CloneKeepsAndEraseDrops) {
  auto g = parse_graph(kGuarded);
  ASSERT_TRUE(g.has_value()) << g.error().to_string();
  ASSERT_EQ((*g)->guards().size(), 1u);
  EXPECT_EQ((*g)->guards()[0].node, (*g)->first_node());
  std::unique_ptr<Graph> copy = (*g)->clone();
  EXPECT_EQ(print_graph(*copy), kGuarded);
  EXPECT_EQ(copy->guards()[0].node, copy->first_node());
  // The reshape is dead; removing it removes the assumption it needed.
  eliminate_dead_code(**g);
  EXPECT_TRUE((*g)->guards().empty());
  EXPECT_EQ(print_graph(*copy), kGuarded);
}

TEST(PropagateShapes, RecomputesFromInputsAndIsIdempotent) {
  auto g = parse_graph(kGuarded);
  ASSERT_TRUE(g.has_value());
  (*g)->clear_guards();
  (*g)->input(0)->set_type(TensorType{DType::F32, Shape({Dim::symbol("B"), Dim(64), Dim(16)})});
  auto r = propagate_shapes(**g);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_TRUE(r->changed);
  EXPECT_EQ(r->counters["types_changed"], 1);  // the flatten: [B*64,16]
  EXPECT_EQ(r->counters["guards"], 1);
  EXPECT_EQ(print_graph(**g), R"(graph @g(%x: f32[B,64,16]) -> (f32[64*B,16]) {
  %0 = reshape(%x) {shape=[4096, 16]} : f32[4096,16]
  %1 = flatten(%x) {end_dim=1} : f32[64*B,16]
  guard B == 64 for %0
  return %1
}
)");
  EXPECT_TRUE(verify_graph(**g));
  auto again = propagate_shapes(**g);
  ASSERT_TRUE(again.has_value());
  EXPECT_FALSE(again->changed);
  EXPECT_EQ(again->counters["types_changed"], 0);
}

TEST(PropagateShapes, FreshSymbolsSkipNamesInUse) {
  // s0 is taken by an input, so the join of the branches is s1.
  auto g = parse_graphs_unverified(R"(graph @g(%p: bool[], %x: f32[s0]) -> (f32[s0]) {
  %0 = cond(%p, %x) : f32[s0] {
    true_fn = graph(%a: f32[s0]) -> (f32[s0]) {
      return %a
    }
    false_fn = graph(%a: f32[s0]) -> (f32[s0]) {
      %0 = cat(%a, %a) : f32[s0]
      return %0
    }
  }
  return %0
}
)");
  ASSERT_TRUE(g.has_value()) << g.error().to_string();
  Graph& graph = *(*g)[0];
  auto r = propagate_shapes(graph);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_EQ(r->counters["fresh_symbols"], 1);
  EXPECT_EQ(graph.first_node()->result()->type().to_string(), "f32[s1]");
  EXPECT_TRUE(verify_graph(graph));
}

TEST(PropagateShapes, MismatchNamesTheNode) {
  auto g = parse_graphs_unverified(R"(graph @g(%a: f32[B,3], %b: f32[4,5]) -> (f32[B,5]) {
  %0 = matmul(%a, %b) : f32[B,5]
  return %0
}
)");
  ASSERT_TRUE(g.has_value());
  auto r = propagate_shapes(*(*g)[0]);
  ASSERT_FALSE(r.has_value());
  const std::string text = r.error().to_string();
  EXPECT_NE(text.find("matmul: mat1 and mat2 shapes cannot be multiplied (Bx3 and 4x5)"), std::string::npos) << text;
  EXPECT_NE(text.find("at %0 = matmul(%a, %b) : f32[B,5]"), std::string::npos) << text;
}

}  // namespace
}  // namespace kiln
