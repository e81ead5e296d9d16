// The default partition: forward and backward graphs that together compute exactly what the
// joint graph computes, with the forward saving only what the backward reads.
#include <gtest/gtest.h>

#include <algorithm>

#include "autograd/joint_graph.h"
#include "autograd/partition.h"
#include "interp/interpreter.h"
#include "ir/parser.h"
#include "ir/printer.h"

namespace kiln {
namespace {

std::unique_ptr<Graph> parse(const char* text) {
  auto g = parse_graph(text);
  EXPECT_TRUE(g) << g.error().to_string();
  return std::move(*g);
}

// Runs joint and partitioned graphs on the same inputs and tangents; they must agree bit for bit.
void expect_partition_matches_joint(const Graph& forward, std::vector<Tensor> primals) {
  auto joint = joint_graph(forward);
  ASSERT_TRUE(joint) << joint.error().to_string();
  std::vector<Tensor> joint_inputs = primals;
  std::vector<Tensor> tangents;
  for (int i = joint->num_primals; i < joint->graph->num_inputs(); ++i) {
    const TensorType& t = joint->graph->input(i)->type();
    tangents.push_back(Tensor::randn(t.shape.sizes(), 100 + static_cast<uint64_t>(i), t.dtype));
  }
  joint_inputs.insert(joint_inputs.end(), tangents.begin(), tangents.end());
  auto expected = interpret(*joint->graph, joint_inputs);
  ASSERT_TRUE(expected) << expected.error().to_string();

  Partition p = partition_default(*joint);
  auto fwd = interpret(*p.forward, primals);
  ASSERT_TRUE(fwd) << fwd.error().to_string();
  std::vector<Tensor> bwd_inputs(fwd->begin() + p.num_forward_outputs, fwd->end());
  ASSERT_EQ(static_cast<int>(bwd_inputs.size()), p.num_saved);
  bwd_inputs.insert(bwd_inputs.end(), tangents.begin(), tangents.end());
  auto bwd = interpret(*p.backward, bwd_inputs);
  ASSERT_TRUE(bwd) << bwd.error().to_string();

  ASSERT_EQ(expected->size(), static_cast<size_t>(p.num_forward_outputs) + bwd->size());
  for (int i = 0; i < p.num_forward_outputs; ++i)
    EXPECT_TRUE((*fwd)[static_cast<size_t>(i)].equal((*expected)[static_cast<size_t>(i)])) << "forward output " << i;
  for (size_t i = 0; i < bwd->size(); ++i)
    EXPECT_TRUE((*bwd)[i].equal((*expected)[static_cast<size_t>(p.num_forward_outputs) + i])) << "gradient " << i;
}

TEST(PartitionDefault, ForwardAndBackwardMatchTheJointGraphExactly) {
  auto g = parse(R"(graph @layer(%x: f64[3,4], %w: param f64[4,2], %b: param f64[2]) -> (f64[]) {
  %0 = matmul(%x, %w) : f64[3,2]
  %1 = add(%0, %b) : f64[3,2]
  %2 = tanh(%1) : f64[3,2]
  %3 = sum(%2) : f64[]
  return %3
})");
  expect_partition_matches_joint(*g, {Tensor::randn({3, 4}, 1, DType::F64), Tensor::randn({4, 2}, 2, DType::F64),
                                      Tensor::randn({2}, 3, DType::F64)});
}

TEST(PartitionDefault, SavesWhatTheBackwardReads) {
  auto g = parse(R"(graph @g(%x: f32[8], %w: param f32[8]) -> (f32[]) {
  %0 = mul(%x, %w) : f32[8]
  %1 = sum(%0) : f32[]
  return %1
})");
  auto joint = joint_graph(*g);
  ASSERT_TRUE(joint) << joint.error().to_string();
  Partition p = partition_default(*joint);
  // d/dx = tangent * w and d/dw = tangent * x: the backward reads both inputs and nothing else.
  ASSERT_EQ(p.num_saved, 2);
  std::vector<std::string> saved;
  for (int i = 0; i < p.num_saved; ++i) saved.push_back(p.backward->input(i)->name());
  std::sort(saved.begin(), saved.end());
  EXPECT_EQ(saved, (std::vector<std::string>{"w", "x"}));
  EXPECT_EQ(p.saved_bytes, 2 * 8 * 4);
  EXPECT_EQ(p.forward->outputs().size(), 3u);
  EXPECT_EQ(p.backward->outputs().size(), 2u);
}

}  // namespace
}  // namespace kiln
