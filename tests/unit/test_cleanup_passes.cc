// The cleanup passes (remove_noop_ops, fold_constants, canonicalize) preserve what a graph
// computes: each hand-written graph below runs on the interpreter in float64 before and after
// each pass with the same random inputs, and the results must agree bit for bit; on a joint
// graph the gradients must agree too. Canonicalization must converge.
#include <gtest/gtest.h>

#include <cmath>

#include "autograd/joint_graph.h"
#include "graph_text.h"
#include "interp/interpreter.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/canonicalize.h"
#include "passes/fold_constants.h"
#include "passes/remove_noop_ops.h"
#include "random_inputs.h"

namespace kiln {
namespace {

// Bit-for-bit equality, except that -0.0 equals +0.0 (x + 0.0 is treated as a no-op).
void expect_same(const Tensor& a, const Tensor& b, double tolerance, const std::string& what) {
  ASSERT_EQ(a.dtype(), b.dtype()) << what;
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double x = a.item_double(i), y = b.item_double(i);
    if (std::isnan(x) && std::isnan(y)) continue;
    if (tolerance == 0) {
      ASSERT_EQ(x, y) << what << " element " << i;
    } else {
      ASSERT_NEAR(x, y, tolerance) << what << " element " << i;
    }
  }
}

using PassFn = Expected<PassResult> (*)(Graph&);
Expected<PassResult> run_noop(Graph& g) { return remove_noop_ops(g, {.must_converge = true}); }
Expected<PassResult> run_fold(Graph& g) { return fold_constants(g, {.driver = {.must_converge = true}}); }
Expected<PassResult> run_canon(Graph& g) { return canonicalize(g, {.must_converge = true}); }
Expected<PassResult> run_all(Graph& g) {
  for (PassFn p : {run_canon, run_fold, run_noop, run_canon}) {
    Expected<PassResult> r = p(g);
    if (!r) return r;
  }
  return PassResult{};
}

// Runs `pass` on a copy of `g` and checks the copy computes the same results; returns
// whether the pass changed anything.
bool check_preserves(const Graph& g, PassFn pass, const std::string& name, double tolerance = 0) {
  std::unique_ptr<Graph> after = g.clone();
  Expected<PassResult> r = pass(*after);
  EXPECT_TRUE(r.has_value()) << name << ": " << (r ? "" : r.error().to_string());
  if (!r) return false;
  Status verified = verify_graph(*after);
  EXPECT_TRUE(verified) << name << ": " << (verified ? "" : verified.error().to_string()) << print_graph(*after);
  for (uint64_t seed : {1u, 2u, 3u}) {
    std::vector<Tensor> inputs = random_inputs(g, seed * 100);
    auto want = interpret(g, inputs);
    auto got = interpret(*after, inputs);
    EXPECT_TRUE(want.has_value() && got.has_value()) << name;
    if (!want || !got) return false;
    EXPECT_EQ(want->size(), got->size());
    for (size_t i = 0; i < want->size(); ++i)
      expect_same((*want)[i], (*got)[i], tolerance, name + " output " + std::to_string(i) + "\n" + print_graph(*after));
  }
  return r->changed || print_graph(g) != print_graph(*after);
}

// Float64 graphs that exercise every rule of the three passes.
const char* const kGraphs[] = {
    R"(graph @noop(%x: f64[2,3], %i: i64[3]) -> (f64[2,3], i64[3], f64[2,3]) {
  %0 = relu(%x) : f64[2,3]
  %1 = view(%0) {size=[2,3]} : f64[2,3]
  %2 = reshape(%1) {shape=[2,-1]} : f64[2,3]
  %3 = expand(%2) {size=[2,3]} : f64[2,3]
  %4 = slice(%3) {dim=1, start=0} : f64[2,3]
  %5 = permute(%4) {dims=[0,1]} : f64[2,3]
  %6 = clone(%5) : f64[2,3]
  %7 = constant_pad_nd(%6) {pad=[0,0]} : f64[2,3]
  %8 = repeat(%7) {repeats=[1,1]} : f64[2,3]
  %9 = zeros() {size=[2,3], dtype=f64} : f64[2,3]
  %10 = add(%8, %9) : f64[2,3]
  %11 = mul(%10, 1) : f64[2,3]
  %12 = div(%11, 1.0) : f64[2,3]
  %13 = pow(%12, 1) : f64[2,3]
  %14 = sub(%13, 0.0) : f64[2,3]
  %15 = round(%i) : i64[3]
  %16 = cat(%15) : i64[3]
  %17 = add(%x, 0.0) : f64[2,3]
  return %14, %16, %17
})",
    R"(graph @fold(%x: f64[2,3]) -> (f64[2,3], f64[2,3], bool[2,3]) {
  %0 = full() {size=[2,3], fill_value=2.0, dtype=f64} : f64[2,3]
  %1 = ones() {size=[1,3], dtype=f64} : f64[1,3]
  %2 = add(%0, %1) : f64[2,3]
  %3 = exp(%2) : f64[2,3]
  %4 = mul(%x, %3) : f64[2,3]
  %5 = sum(%0) {dim=[0], keepdim=true} : f64[1,3]
  %6 = add(%x, %5) : f64[2,3]
  %7 = zeros_like(%x) : f64[2,3]
  %8 = lt(%7, %3) : bool[2,3]
  return %4, %6, %8
})",
    R"(graph @canon(%x: f64[2,3,4], %y: f64[2,3,4], %m: f64[3,4], %i: i64[4], %p: bool[4]) -> (f64[2,3,4], f64[2,3,4], f64[4,3], f64[3,2,4], f64[4,6], f64[3], i64[4], bool[4], f64[2,3,4]) {
  %0 = full() {size=[2,3,4], fill_value=0.75, dtype=f64} : f64[2,3,4]
  %1 = mul(%0, %x) : f64[2,3,4]
  %2 = sub(%1, 1.5) : f64[2,3,4]
  %3 = div(%2, 4) : f64[2,3,4]
  %4 = mul(%3, -1) : f64[2,3,4]
  %5 = add(%4, %4) : f64[2,3,4]
  %6 = neg(%y) : f64[2,3,4]
  %7 = add(%5, %6) : f64[2,3,4]
  %8 = sub(%7, %6) : f64[2,3,4]
  %9 = neg(%8) : f64[2,3,4]
  %10 = neg(%9) : f64[2,3,4]
  %11 = t(%m) : f64[4,3]
  %12 = transpose(%x) {dim0=2, dim1=0} : f64[4,3,2]
  %13 = transpose(%12) {dim0=0, dim1=-1} : f64[2,3,4]
  %14 = add(%13, %10) : f64[2,3,4]
  %15 = permute(%x) {dims=[2,0,1]} : f64[4,2,3]
  %16 = permute(%15) {dims=[2,1,0]} : f64[3,2,4]
  %17 = reshape(%x) {shape=[6,4]} : f64[6,4]
  %18 = reshape(%17) {shape=[4,6]} : f64[4,6]
  %19 = sum(%x) {dim=[-1,0]} : f64[3]
  %20 = sub(%i, 7) : i64[4]
  %21 = _to_copy(%p) {dtype=f64} : f64[4]
  %22 = _to_copy(%21) {dtype=i64} : i64[4]
  %23 = add(%20, %22) : i64[4]
  %24 = logical_not(%p) : bool[4]
  %25 = logical_not(%24) : bool[4]
  %26 = mean(%14) {dim=[2,0], keepdim=true} : f64[1,3,1]
  %27 = sub(%14, %26) : f64[2,3,4]
  %28 = logical_and(%25, %p) : bool[4]
  return %14, %10, %11, %16, %18, %19, %23, %28, %27
})",
};

TEST(CleanupPasses, EveryPassPreservesResultsBitForBit) {
  for (const char* text : kGraphs) {
    std::unique_ptr<Graph> g = parse_or_fail(text);
    ASSERT_TRUE(g);
    const std::string name = g->name();
    EXPECT_TRUE(check_preserves(*g, run_noop, name + " remove_noop_ops") || name != "noop");
    EXPECT_TRUE(check_preserves(*g, run_fold, name + " fold_constants") || name != "fold");
    EXPECT_TRUE(check_preserves(*g, run_canon, name + " canonicalize") || name != "canon");
    check_preserves(*g, run_all, name + " all three");
  }
}

TEST(CleanupPasses, CanonicalizeConvergesOnItsOwnOutput) {
  for (const char* text : kGraphs) {
    std::unique_ptr<Graph> g = parse_or_fail(text);
    ASSERT_TRUE(g);
    auto first = canonicalize(*g, {.max_iterations = 8, .must_converge = true});
    ASSERT_TRUE(first.has_value()) << first.error().to_string();
    const std::string once = print_graph(*g);
    auto second = canonicalize(*g, {.max_iterations = 8, .must_converge = true});
    ASSERT_TRUE(second.has_value()) << second.error().to_string();
    EXPECT_FALSE(second->changed) << once;
    EXPECT_EQ(print_graph(*g), once);
  }
}

TEST(CleanupPasses, CanonicalizeRulesFireWhereExpected) {
  std::unique_ptr<Graph> g = parse_or_fail(kGraphs[2]);
  ASSERT_TRUE(g);
  auto r = canonicalize(*g, {.must_converge = true});
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  for (const char* rule : {"constant_right", "sub_literal_to_add", "mul_neg_one_to_neg", "div_pow2_to_mul",
                           "add_self_to_mul", "fold_neg_operand", "double_neg", "double_logical_not", "t_to_transpose",
                           "transpose_dims_sorted", "transpose_of_transpose", "permute_of_permute",
                           "reshape_of_reshape", "reduce_dims_sorted", "cast_of_widening_cast"})
    EXPECT_GT(r->counters[std::string("rule.") + rule], 0) << rule << "\n" << print_graph(*g);
}

// A small MLP with the spellings the passes clean up; its joint graph computes the same
// outputs and gradients after the three passes.
TEST(CleanupPasses, JointGraphGradientsPreserved) {
  std::unique_ptr<Graph> forward = parse_or_fail(
      R"(graph @mlp(%x: f64[4,8], %w1: param f64[16,8], %b1: param f64[16], %w2: param f64[3,16]) -> (f64[]) {
  %0 = t(%w1) : f64[8,16]
  %1 = matmul(%x, %0) : f64[4,16]
  %2 = ones() {size=[16], dtype=f64} : f64[16]
  %3 = mul(%2, %b1) : f64[16]
  %4 = add(%1, %3) : f64[4,16]
  %5 = relu(%4) : f64[4,16]
  %6 = div(%5, 2) : f64[4,16]
  %7 = transpose(%w2) {dim0=1, dim1=0} : f64[16,3]
  %8 = transpose(%7) {dim0=0, dim1=1} : f64[3,16]
  %9 = transpose(%8) {dim0=-1, dim1=0} : f64[16,3]
  %10 = matmul(%6, %9) : f64[4,3]
  %11 = reshape(%10) {shape=[4,3]} : f64[4,3]
  %12 = sub(%11, 0.5) : f64[4,3]
  %13 = mul(%12, %12) : f64[4,3]
  %14 = sum(%13) {dim=[-1,0]} : f64[]
  return %14
})");
  ASSERT_TRUE(forward);
  auto joint = joint_graph(*forward);
  ASSERT_TRUE(joint.has_value()) << joint.error().to_string();
  const Graph& jg = *joint->graph;
  EXPECT_EQ(jg.outputs().size(), 5u);  // the loss, then the gradients of x, w1, b1, w2
  EXPECT_TRUE(check_preserves(jg, run_all, "joint graph", 1e-12));
  std::unique_ptr<Graph> cleaned = jg.clone();
  ASSERT_TRUE(run_all(*cleaned).has_value());
  EXPECT_LT(cleaned->num_nodes(), jg.num_nodes()) << print_graph(*cleaned);
}

TEST(CleanupPasses, PassManagerRunsThemByName) {
  std::unique_ptr<Graph> g = parse_or_fail(kGraphs[0]);
  ASSERT_TRUE(g);
  PassManagerOptions options;
  options.verify_each = true;
  Status s = run_passes(*g, "canonicalize,fold-constants,remove-noop-ops", options);
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(print_graph(*g).find("clone("), std::string::npos) << print_graph(*g);
}

}  // namespace
}  // namespace kiln
