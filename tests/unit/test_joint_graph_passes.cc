// joint_graph_passes and its new steps (pad-mm, unique-index) preserve what a graph computes:
// each graph runs on the interpreter in float64 before and after, with the same random
// inputs, and results must agree (padding adds exact zero terms); on joint graphs the
// gradients are among the outputs, so they must agree too. Options turn each step off.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "autograd/joint_graph.h"
#include "graph_text.h"
#include "interp/interpreter.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/mark_unique_indices.h"
#include "patterns/joint_graph_passes.h"
#include "patterns/pad_mm.h"
#include "random_inputs.h"
#include "train/grad_function.h"

namespace kiln {
namespace {

using PassFn = std::function<Expected<PassResult>(Graph&)>;

// Runs `pass` on a copy of `g`, checks the copy verifies and computes the same results on
// three sets of random inputs; returns the pass's counters.
std::map<std::string, int64_t> check_preserves(const Graph& g, const PassFn& pass, double tolerance = 1e-12) {
  std::unique_ptr<Graph> after = g.clone();
  Expected<PassResult> r = pass(*after);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().to_string());
  if (!r) return {};
  Status verified = verify_graph(*after);
  EXPECT_TRUE(verified) << (verified ? "" : verified.error().to_string()) << print_graph(*after);
  for (uint64_t seed : {1u, 2u, 3u}) {
    std::vector<Tensor> inputs = random_inputs(g, seed * 100, 0, 6);
    auto want = interpret(g, inputs);
    auto got = interpret(*after, inputs);
    EXPECT_TRUE(want.has_value() && got.has_value()) << print_graph(*after);
    if (!want || !got) return {};
    EXPECT_EQ(want->size(), got->size());
    for (size_t i = 0; i < want->size() && i < got->size(); ++i) {
      const Tensor& a = (*want)[i];
      const Tensor& b = (*got)[i];
      EXPECT_EQ(a.sizes(), b.sizes()) << "output " << i;
      if (a.sizes() != b.sizes()) continue;
      for (int64_t k = 0; k < a.numel(); ++k)
        EXPECT_NEAR(a.item_double(k), b.item_double(k), tolerance * (1 + std::abs(a.item_double(k))))
            << "output " << i << " element " << k << "\n"
            << print_graph(*after);
    }
  }
  return r->counters;
}

// f64 has no alignment in the reference; the tests give it f32's so that numerics are
// checked in float64, and force the padding (the shapes are small).
const PadMmOptions kPadF64{.alignment_f64 = 4, .force = true};

PassFn pad_mm_pass(const PadMmOptions& o) {
  return [o](Graph& g) -> Expected<PassResult> {
    KILN_ASSIGN_OR_RETURN(auto set, make_pad_mm_set(o));
    return apply_patterns(g, *set, {.must_converge = true});
  };
}

constexpr const char* kProducts =
    R"(graph @products(%a: f64[5,7], %b: f64[7,6], %c: f64[2,5,7], %d: f64[2,7,3], %bias: f64[5,1], %v: f64[3], %i: i64[5,7], %j: i64[7,6], %r: f64[1,7]) -> (f64[5,6], f64[2,5,3], f64[5,6], f64[2,5,6], f64[5,3], i64[5,6], f64[1,6]) {
  %0 = mm(%a, %b) : f64[5,6]
  %1 = bmm(%c, %d) : f64[2,5,3]
  %2 = addmm(%bias, %a, %b) {beta=0.5, alpha=2.0} : f64[5,6]
  %3 = matmul(%c, %b) : f64[2,5,6]
  %5 = select(%d) {dim=0, index=0} : f64[7,3]
  %6 = addmm(%v, %a, %5) : f64[5,3]
  %7 = mm(%i, %j) : i64[5,6]
  %8 = mm(%r, %b) : f64[1,6]
  return %0, %1, %2, %3, %6, %7, %8
})";

TEST(PadMm, PreservesResultsInFloat64) {
  std::unique_ptr<Graph> g = parse_or_fail(kProducts);
  ASSERT_TRUE(g);
  auto counters = check_preserves(*g, pad_mm_pass(kPadF64));
  EXPECT_EQ(counters["pattern.pad_mm"], 2);  // %0 and %8 (M = 1 stays, K = 7 padded); not the i64 mm
  EXPECT_EQ(counters["pattern.pad_bmm"], 1);
  EXPECT_EQ(counters["pattern.pad_addmm"], 2);
  EXPECT_EQ(counters["pattern.pad_matmul"], 1);
  EXPECT_GT(counters["node_visits"], 0);
}

TEST(PadMm, PlanFollowsAlignmentAndDtype) {
  std::unique_ptr<Graph> g = parse_or_fail(kProducts);
  ASSERT_TRUE(g);
  std::vector<Node*> nodes = g->nodes();
  // Without the test's f64 alignment nothing f64 is padded, and integers never are.
  EXPECT_FALSE(plan_pad_mm(*nodes[0]).has_value());
  EXPECT_FALSE(plan_pad_mm(*nodes[6], kPadF64).has_value());
  const auto mm = plan_pad_mm(*nodes[0], kPadF64);
  ASSERT_TRUE(mm.has_value());
  EXPECT_EQ(mm->m_pad, 3);
  EXPECT_EQ(mm->k_pad, 1);
  EXPECT_EQ(mm->n_pad, 2);
  const auto row = plan_pad_mm(*nodes[7], kPadF64);
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->m_pad, 0);  // a dim of 1 is never padded
  // Unforced, these tiny products are memory bound: padding does not pay.
  EXPECT_FALSE(plan_pad_mm(*nodes[0], {.alignment_f64 = 4})->pays);
}

TEST(UniqueIndex, MarksWithoutChangingResults) {
  std::unique_ptr<Graph> g =
      parse_or_fail(R"(graph @g(%x: f64[8,4], %y: f64[3,4], %w: f64[8,4]) -> (f64[8,4], f64[3,4], f64[8,4], f64[8,4]) {
  %0 = randperm() {n=8, seed=3} : i64[8]
  %1 = slice(%0) {end=3} : i64[3]
  %2 = index_add(%x, %1, %y) {dim=0, alpha=2.0} : f64[8,4]
  %3 = index(%x, %1) : f64[3,4]
  %4 = index_put(%x, %1, %y) {accumulate=true} : f64[8,4]
  %5 = randperm() {n=4, seed=5} : i64[4]
  %6 = index_add(%x, %5, %w) {dim=1} : f64[8,4]
  return %2, %3, %4, %6
})");
  ASSERT_TRUE(g);
  auto counters = check_preserves(
      *g, [](Graph& h) -> Expected<PassResult> { return mark_unique_indices(h); }, 0);
  EXPECT_EQ(counters["marked"], 4);  // %6 too: randperm(4) along x's dim 1 of size 4
}

// A forward graph with a misaligned product, a randperm-prefix index_add and a clone; its
// joint graph, after joint_graph_passes, computes the same loss and gradients.
constexpr const char* kForward = R"(graph @f(%x: f64[6,7], %y: f64[3,5], %w: param f64[7,5]) -> (f64[]) {
  %0 = clone(%x) : f64[6,7]
  %1 = mm(%0, %w) : f64[6,5]
  %2 = randperm() {n=6, seed=7} : i64[6]
  %3 = slice(%2) {end=3} : i64[3]
  %4 = index_add(%1, %3, %y) {dim=0} : f64[6,5]
  %5 = tanh(%4) : f64[6,5]
  %6 = sum(%5) : f64[]
  return %6
})";

TEST(JointGraphPasses, PreserveLossAndGradients) {
  std::unique_ptr<Graph> forward = parse_or_fail(kForward);
  ASSERT_TRUE(forward);
  auto joint = joint_graph(*forward);
  ASSERT_TRUE(joint.has_value()) << joint.error().to_string();
  const JointGraphPassOptions options{.pad_mm_options = kPadF64};
  auto counters = check_preserves(*joint->graph, [&](Graph& g) { return joint_graph_passes(g, options); });
  EXPECT_GT(counters["pad-mm.matches"], 0);
  EXPECT_GT(counters["unique-index.marked"], 0);
  EXPECT_GT(counters["remove-noop-ops.rewrites"], 0) << ::testing::PrintToString(counters);
}

TEST(JointGraphPasses, EachStepCanBeTurnedOff) {
  std::unique_ptr<Graph> forward = parse_or_fail(kForward);
  ASSERT_TRUE(forward);
  auto joint = joint_graph(*forward);
  ASSERT_TRUE(joint.has_value()) << joint.error().to_string();
  JointGraphPassOptions off{.remove_noop_ops = false,
                            .fold_constants = false,
                            .fuse_attention = false,
                            .pad_mm = false,
                            .unique_index = false,
                            .dce = false,
                            .pad_mm_options = kPadF64};
  const std::string before = print_graph(*joint->graph);
  auto r = joint_graph_passes(*joint->graph, off);
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->changed);
  EXPECT_TRUE(r->counters.empty());
  EXPECT_EQ(print_graph(*joint->graph), before);
  off.unique_index = true;
  r = joint_graph_passes(*joint->graph, off);
  ASSERT_TRUE(r.has_value());
  EXPECT_GT(r->counters["unique-index.marked"], 0);
  EXPECT_EQ(r->counters.count("pad-mm.matches"), 0u);
  EXPECT_EQ(print_graph(*joint->graph).find("constant_pad_nd"), std::string::npos);
}

TEST(JointGraphPasses, ReferenceOrder) {
  EXPECT_EQ(joint_graph_pass_names(), (std::vector<std::string>{"remove-noop-ops", "fold-constants", "canonicalize",
                                                                "fuse-attention", "pad-mm", "unique-index", "dce"}));
}

// GradFunction runs the passes by default; with them off the partition sees the raw joint
// graph, and the loss and gradients agree.
TEST(JointGraphPasses, GradFunctionRunsThemByDefault) {
  std::unique_ptr<Graph> forward = parse_or_fail(kForward);
  ASSERT_TRUE(forward);
  const Tensor w = Tensor::randn({7, 5}, 11, DType::F64);
  GradOptions with{.joint_passes = {.pad_mm_options = kPadF64}, .runner = {.execution = Execution::Interpreter}};
  GradOptions without{.run_joint_passes = false, .runner = {.execution = Execution::Interpreter}};
  auto a = GradFunction::create(*forward, {w}, with);
  auto b = GradFunction::create(*forward, {w}, without);
  ASSERT_TRUE(a.has_value()) << a.error().to_string();
  ASSERT_TRUE(b.has_value()) << b.error().to_string();
  EXPECT_NE(print_graph(*a->joint().graph).find("unique_indices=true"), std::string::npos)
      << print_graph(*a->joint().graph);
  EXPECT_EQ(print_graph(*b->joint().graph).find("unique_indices=true"), std::string::npos);
  const std::vector<Tensor> inputs = {Tensor::randn({6, 7}, 12, DType::F64), Tensor::randn({3, 5}, 13, DType::F64)};
  auto ra = (*a)(inputs);
  auto rb = (*b)(inputs);
  ASSERT_TRUE(ra.has_value()) << ra.error().to_string();
  ASSERT_TRUE(rb.has_value()) << rb.error().to_string();
  ASSERT_EQ(ra->grads.size(), rb->grads.size());
  EXPECT_NEAR(ra->values[0].item_double(0), rb->values[0].item_double(0), 1e-12);
  for (size_t i = 0; i < ra->grads.size(); ++i)
    for (int64_t k = 0; k < ra->grads[i].numel(); ++k)
      EXPECT_NEAR(ra->grads[i].item_double(k), rb->grads[i].item_double(k), 1e-12);
}

}  // namespace
}  // namespace kiln
