// The partitioners: forward and backward graphs that together compute exactly what the joint
// graph computes; the default partition saves what the backward reads, the min cut saves less
// and recomputes cheap ops, and saved bytes never grow as the memory budget shrinks.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>

#include "autograd/joint_graph.h"
#include "autograd/partition.h"
#include "interp/interpreter.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ops/rng_state.h"

namespace kiln {
namespace {

std::unique_ptr<Graph> parse(const char* text) {
  auto g = parse_graph(text);
  EXPECT_TRUE(g) << g.error().to_string();
  return std::move(*g);
}

// Runs joint and partitioned graphs on the same inputs and tangents; they must agree bit for bit.
void expect_partition_matches_joint(const Graph& forward, std::vector<Tensor> primals,
                                    const PartitionOptions& options = {.kind = PartitionKind::Default}) {
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

  Expected<Partition> partitioned = partition(*joint, options);
  ASSERT_TRUE(partitioned) << partitioned.error().to_string();
  const Partition& p = *partitioned;
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
  Expected<Partition> by_default = partition_default(*joint);
  ASSERT_TRUE(by_default) << by_default.error().to_string();
  const Partition& p = *by_default;
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

// A two-layer MLP with a normalization and a reduction: enough structure for every ban rule.
constexpr const char* kMlp = R"(graph @mlp(%x: f32[16,32], %w1: param f32[32,64], %w2: param f32[64,8]) -> (f32[]) {
  %0 = matmul(%x, %w1) : f32[16,64]
  %1 = tanh(%0) : f32[16,64]
  %2 = mul(%1, %1) : f32[16,64]
  %3 = sum(%2) {dim=[-1], keepdim=true} : f32[16,1]
  %4 = rsqrt(%3) : f32[16,1]
  %5 = mul(%1, %4) : f32[16,64]
  %6 = matmul(%5, %w2) : f32[16,8]
  %7 = sigmoid(%6) : f32[16,8]
  %8 = sum(%7) : f32[]
  return %8
})";

std::vector<Tensor> mlp_inputs() {
  return {Tensor::randn({16, 32}, 1), Tensor::randn({32, 64}, 2), Tensor::randn({64, 8}, 3)};
}

TEST(PartitionMinCut, ForwardAndBackwardMatchTheJointGraphExactlyAtEveryBudget) {
  auto g = parse(kMlp);
  for (double budget : {1.0, 0.5, 0.0})
    for (KnapsackSolver solver : {KnapsackSolver::DynamicProgramming, KnapsackSolver::Greedy}) {
      SCOPED_TRACE("budget " + std::to_string(budget));
      expect_partition_matches_joint(*g, mlp_inputs(), {.memory_budget = budget, .solver = solver});
    }
}

// A dropout that reads the joint graph's generator state replays its draws, so the min cut
// may recompute it: it saves the small input and the state instead of the large dropout
// output, and forward + backward still equal the joint graph bit for bit.
TEST(PartitionMinCut, RecomputesDropoutThatReadsTheGeneratorState) {
  auto g = parse(R"(graph @g(%x: f32[256]) -> (f32[4,256]) {
  %0 = expand(%x) {size=[4,256]} : f32[4,256]
  %1 = dropout(%0) {p=0.5, seed=3, train=true} : f32[4,256]
  %2 = sin(%1) : f32[4,256]
  %3 = cos(%2) : f32[4,256]
  return %3
})");
  auto joint = joint_graph(*g);
  ASSERT_TRUE(joint) << joint.error().to_string();
  ASSERT_TRUE(joint->rng_state_added);
  EXPECT_EQ(joint->rng_state_input, 1);
  Expected<Partition> p = partition(*joint, {});
  ASSERT_TRUE(p) << p.error().to_string();
  std::vector<std::string> saved;
  for (const SavedValue& v : p->saved) saved.push_back(v.name);
  EXPECT_EQ(saved, (std::vector<std::string>{"x", "rng_state"}));
  EXPECT_EQ(p->recomputed_nodes, 3);  // expand, dropout, sin
  const std::vector<Tensor> primals = {Tensor::randn({256}, 1), make_rng_state(7, 3)};
  expect_partition_matches_joint(*g, primals, {});
  expect_partition_matches_joint(*g, primals, {.kind = PartitionKind::Default});

  // Without the generator state the dropout keeps its static seed and is never recomputed.
  auto fixed = joint_graph(*g, {.wrt = {}, .tangents = TangentPolicy::WhereNeeded, .lift_rng_state = false});
  ASSERT_TRUE(fixed) << fixed.error().to_string();
  Expected<Partition> q = partition(*fixed, {});
  ASSERT_TRUE(q) << q.error().to_string();
  ASSERT_EQ(q->saved.size(), 1u);
  EXPECT_EQ(q->saved[0].type.shape, Shape({4, 256}));  // the dropout's output
  EXPECT_EQ(q->recomputed_nodes, 1);                   // sin
}

TEST(PartitionMinCut, SavesLessThanTheDefaultPartition) {
  auto g = parse(kMlp);
  auto joint = joint_graph(*g);
  ASSERT_TRUE(joint) << joint.error().to_string();
  Expected<Partition> min_cut = partition(*joint);
  ASSERT_TRUE(min_cut) << min_cut.error().to_string();
  Expected<Partition> by_default = partition_default(*joint);
  ASSERT_TRUE(by_default) << by_default.error().to_string();
  EXPECT_LT(min_cut->saved_bytes, by_default->saved_bytes);
  EXPECT_GT(min_cut->recomputed_nodes, 0);
  // Matmuls are never recomputed.
  for (Node* n : min_cut->backward->nodes())
    if (n->op() == OpKind::Matmul) {
      bool reads_tangent_path = false;
      for (const Operand& o : n->operands())
        reads_tangent_path |= !o.value->is_input() || o.value->role() == InputRole::Tangent;
      EXPECT_TRUE(reads_tangent_path) << print_node(*n);
    }
}

TEST(PartitionMinCut, SavedBytesNeverGrowAsTheBudgetShrinks) {
  auto g = parse(kMlp);
  auto joint = joint_graph(*g);
  ASSERT_TRUE(joint) << joint.error().to_string();
  for (KnapsackSolver solver : {KnapsackSolver::DynamicProgramming, KnapsackSolver::Greedy}) {
    int64_t previous = INT64_MAX;
    for (int step = 20; step >= 0; --step) {
      Expected<Partition> p = partition(*joint, {.memory_budget = step / 20.0, .solver = solver});
      ASSERT_TRUE(p) << p.error().to_string();
      EXPECT_LE(p->saved_bytes, previous) << "budget " << step / 20.0;
      previous = p->saved_bytes;
    }
  }
}

// x's negations feed only a sum, so they are far from the backward and weigh their bytes
// times 1.1^100; at 10^17 elements (a size typo) that passes int64, and the partitioner
// aborted with "negative capacity". Every weight grows with the size, so each budget finds
// the cut it finds at 1024 elements.
constexpr const char* kFarFromBackward = R"(graph @f(%x: f32[N], %y: f32[N]) -> (f32[]) {
  %0 = neg(%x) : f32[N]
  %1 = neg(%0) : f32[N]
  %2 = sum(%1) : f32[]
  %3 = exp(%y) : f32[N]
  %4 = sin(%3) : f32[N]
  %5 = sum(%4) : f32[]
  %6 = add(%2, %5) : f32[]
  return %6
})";

TEST(PartitionMinCut, AnAbsurdSizeGivesTheCutOfASmallOne) {
  // The forward and backward graphs at `size`, which prints as N.
  const auto forward_and_backward = [](const std::string& size, double budget) -> std::string {
    std::string text = kFarFromBackward;
    for (size_t at = text.find("[N]"); at != std::string::npos; at = text.find("[N]", at + 1))
      text.replace(at + 1, 1, size);
    auto g = parse(text.c_str());
    auto joint = joint_graph(*g);
    EXPECT_TRUE(joint) << joint.error().to_string();
    Expected<Partition> p = partition(*joint, {.memory_budget = budget});
    EXPECT_TRUE(p) << p.error().to_string();
    if (!p) return "";
    std::string printed = print_graph(*p->forward) + print_graph(*p->backward);
    for (size_t at = printed.find("[" + size + "]"); at != std::string::npos; at = printed.find("[" + size + "]", at))
      printed.replace(at + 1, size.size(), "N");
    return printed;
  };
  for (double budget : {1.0, 0.5, 0.0}) {
    SCOPED_TRACE("budget " + std::to_string(budget));
    EXPECT_EQ(forward_and_backward("100000000000000000", budget), forward_and_backward("1024", budget));
  }
}

TEST(PartitionMinCut, BudgetZeroSavesOnlyInputs) {
  auto g = parse(kMlp);
  auto joint = joint_graph(*g);
  ASSERT_TRUE(joint) << joint.error().to_string();
  Expected<Partition> p = partition(*joint, {.memory_budget = 0});
  ASSERT_TRUE(p) << p.error().to_string();
  for (int i = 0; i < p->num_saved; ++i) {
    const std::string& name = p->backward->input(i)->name();
    EXPECT_TRUE(name == "x" || name == "w1" || name == "w2") << name;
  }
}

TEST(PartitionMinCut, BudgetOutsideZeroOneIsAnError) {
  auto g = parse(kMlp);
  auto joint = joint_graph(*g);
  ASSERT_TRUE(joint) << joint.error().to_string();
  for (double budget : {-0.1, 1.5, std::nan("")}) {
    Expected<Partition> p = partition(*joint, {.memory_budget = budget});
    ASSERT_FALSE(p);
    EXPECT_NE(p.error().to_string().find("is outside [0, 1]"), std::string::npos) << p.error().to_string();
  }
}

TEST(PartitionMinCut, BackwardStartsWhereTheFirstTangentIsUsed) {
  // d(sin(x) * cos(x)): the first tangent use needs cos(x), the second sin(x); recomputed like
  // the autograd engine would run them, sin(x) comes only after the first tangent use.
  auto g = parse(R"(graph @f(%x: f32[64]) -> (f32[64]) {
  %0 = sin(%x) : f32[64]
  %1 = cos(%x) : f32[64]
  %2 = mul(%0, %1) : f32[64]
  return %2
})");
  auto joint = joint_graph(*g);
  ASSERT_TRUE(joint) << joint.error().to_string();
  Expected<Partition> p = partition(*joint);
  ASSERT_TRUE(p) << p.error().to_string();
  ASSERT_EQ(p->num_saved, 1);
  EXPECT_EQ(p->backward->input(0)->name(), "x");
  std::vector<Node*> nodes = p->backward->nodes();
  int first_tangent_use = -1, sin = -1;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    const Node* n = nodes[static_cast<size_t>(i)];
    for (const Operand& o : n->operands())
      if (first_tangent_use < 0 && o.value->is_input() && o.value->role() == InputRole::Tangent) first_tangent_use = i;
    if (n->op() == OpKind::Sin && n->operand(0).value->is_input() && sin < 0) sin = i;
  }
  ASSERT_GE(first_tangent_use, 0);
  EXPECT_GT(sin, first_tangent_use) << print_graph(*p->backward);
  expect_partition_matches_joint(*g, {Tensor::randn({64}, 4)}, {});
}

}  // namespace
}  // namespace kiln
