// The acceptance tests of the partitioners on the transformer block (batch 4, sequence 512,
// width 1024, 16 heads, float32): forward + backward through the partitioned graphs equal
// the unpartitioned joint graph bit for bit on the interpreter, min-cut at budget 1 saves at
// most 80% of the default partition's bytes, and saved bytes never grow as the budget shrinks.
//
// The bit-for-bit run interprets the full-size block twice (about a minute of CPU in a
// release build). Under the sanitizers (KILN_SANITIZED) it runs a reduced block of the same
// structure instead; the byte checks always use the full size (they only partition).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "autograd/joint_graph.h"
#include "autograd/partition.h"
#include "interp/interpreter.h"
#include "transformer_block.h"

namespace kiln {
namespace {

using test_models::TransformerBlockConfig;

#ifdef KILN_SANITIZED
constexpr TransformerBlockConfig kRunConfig{.batch = 2, .seq = 16, .width = 64, .heads = 4, .seed = 5};
#else
constexpr TransformerBlockConfig kRunConfig{.seed = 5};
#endif

JointGraph block_joint(const TransformerBlockConfig& config, std::vector<Tensor>* primals = nullptr) {
  auto block = test_models::capture_transformer_block(config);
  EXPECT_TRUE(block) << block.error().to_string();
  if (primals != nullptr) {
    *primals = {test_models::transformer_block_input(config)};
    primals->insert(primals->end(), block->lifted.begin(), block->lifted.end());
  }
  auto joint = joint_graph(*block->graph);
  EXPECT_TRUE(joint) << joint.error().to_string();
  return std::move(*joint);
}

TEST(TransformerBlockPartition, PartitionedForwardAndBackwardMatchTheJointGraphBitForBit) {
  std::vector<Tensor> primals;
  const JointGraph joint = block_joint(kRunConfig, &primals);
  ASSERT_EQ(joint.graph->num_inputs(), joint.num_primals + 1);  // one tangent: the scalar loss
  const Tensor tangent = Tensor::full({}, 1.0, DType::F32);
  std::vector<Tensor> joint_inputs = primals;
  joint_inputs.push_back(tangent);
  auto expected = interpret(*joint.graph, joint_inputs);
  ASSERT_TRUE(expected) << expected.error().to_string();

  Expected<Partition> p = partition(joint, {});  // min-cut, budget 1
  ASSERT_TRUE(p) << p.error().to_string();
  auto forward = interpret(*p->forward, primals);
  ASSERT_TRUE(forward) << forward.error().to_string();
  std::vector<Tensor> backward_inputs(forward->begin() + p->num_forward_outputs, forward->end());
  backward_inputs.push_back(tangent);
  auto backward = interpret(*p->backward, backward_inputs);
  ASSERT_TRUE(backward) << backward.error().to_string();

  ASSERT_EQ(expected->size(), static_cast<size_t>(p->num_forward_outputs) + backward->size());
  EXPECT_TRUE((*forward)[0].equal((*expected)[0])) << "loss";
  for (size_t i = 0; i < backward->size(); ++i)
    EXPECT_TRUE((*backward)[i].equal((*expected)[1 + i]))
        << "gradient of " << joint.graph->input(static_cast<int>(i))->name();
}

TEST(TransformerBlockPartition, MinCutSavesAtMostEightyPercentOfTheDefault) {
  const JointGraph joint = block_joint({});
  Expected<Partition> by_default = partition_default(joint);
  ASSERT_TRUE(by_default) << by_default.error().to_string();
  Expected<Partition> min_cut = partition(joint, {});
  ASSERT_TRUE(min_cut) << min_cut.error().to_string();
  EXPECT_LE(static_cast<double>(min_cut->saved_bytes), 0.8 * static_cast<double>(by_default->saved_bytes))
      << min_cut->saved_bytes << " of " << by_default->saved_bytes;
}

TEST(TransformerBlockPartition, SavedBytesNeverGrowAsTheBudgetShrinks) {
  const JointGraph joint = block_joint({});
  for (KnapsackSolver solver : {KnapsackSolver::DynamicProgramming, KnapsackSolver::Greedy}) {
    int64_t previous = INT64_MAX;
    for (int step = 10; step >= 0; --step) {
      Expected<Partition> p = partition(joint, {.memory_budget = step / 10.0, .solver = solver});
      ASSERT_TRUE(p) << p.error().to_string();
      EXPECT_LE(p->saved_bytes, previous) << "budget " << step / 10.0;
      previous = p->saved_bytes;
    }
    // Budget 0 saves only inputs (x and the parameters the backward reads; the last bias
    // only shifts the loss, so nothing in the backward reads it).
    Expected<Partition> zero = partition(joint, {.memory_budget = 0, .solver = solver});
    ASSERT_TRUE(zero) << zero.error().to_string();
    for (int i = 0; i < zero->num_saved; ++i) {
      const std::string& name = zero->backward->input(i)->name();
      bool is_primal = false;
      for (int k = 0; k < joint.num_primals; ++k) is_primal |= joint.graph->input(k)->name() == name;
      EXPECT_TRUE(is_primal) << name;
    }
    EXPECT_EQ(zero->num_saved, joint.num_primals - 1);
  }
}

}  // namespace
}  // namespace kiln
