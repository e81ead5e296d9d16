// Outputs that are a differentiated input or a view of one carry their gradient to that input
// (autograd/joint_graph.h): through the unpartitioned reference, and through GradFunction's
// forward and backward graphs run by the interpreter and compiled for the CPU, with the
// numbers torch.autograd.grad gives (tests/lit/autograd/grad_alias_outputs.kir derives them).
#include <gtest/gtest.h>

#include "autograd/value_and_grad.h"
#include "ir/parser.h"
#include "support/error.h"
#include "train/grad_function.h"

namespace kiln {
namespace {

// x itself, a transpose of it, a slice of a reshape of it, and x*x.
constexpr const char* kAliasOutputs = R"(graph @f(%x: f32[2,3]) -> (f32[2,3], f32[3,2], f32[3], f32[2,3]) {
  %0 = transpose(%x) {dim0=0, dim1=1} : f32[3,2]
  %1 = reshape(%x) {shape=[6]} : f32[6]
  %2 = slice(%1) {dim=0, start=1, end=4} : f32[3]
  %3 = mul(%x, %x) : f32[2,3]
  return %x, %0, %2, %3
}
)";

// x = [[0,1,2],[3,4,5]]; tangents: ones, arange(6) as [3,2], [10,20,30], ones.
std::vector<Tensor> inputs() { return {Tensor::from_doubles({0, 1, 2, 3, 4, 5}, {2, 3})}; }
std::vector<Tensor> output_grads() {
  return {Tensor::full({2, 3}, 1.0), Tensor::from_doubles({0, 1, 2, 3, 4, 5}, {3, 2}),
          Tensor::from_doubles({10, 20, 30}, {3}), Tensor::full({2, 3}, 1.0)};
}
// t0 + transpose(t1) + t2 at flat positions 1..3 + 2*x*t3.
Tensor want_grad() { return Tensor::from_doubles({1, 15, 29, 38, 12, 16}, {2, 3}); }

std::unique_ptr<Graph> parse_alias_outputs() { return value_or_throw(parse_graph(kAliasOutputs)); }

TEST(GradAliasOutputs, TheReferenceAddsEachAliasGradient) {
  std::unique_ptr<Graph> g = parse_alias_outputs();
  ValueAndGrad r = value_or_throw(value_and_grad(*g, inputs(), output_grads()));
  ASSERT_EQ(r.grads.size(), 1u);
  EXPECT_TRUE(r.grads[0].equal(want_grad()));
}

TEST(GradAliasOutputs, PartitionedGradientsMatchOnEveryBackend) {
  std::unique_ptr<Graph> g = parse_alias_outputs();
  for (Execution execution : {Execution::Interpreter, Execution::Compiled}) {
    GradFunction fn = value_or_throw(GradFunction::create(*g, {}, {.runner = {.execution = execution}}));
    EXPECT_EQ(fn.num_differentiable_outputs(), 4);
    ValueAndGrad r = value_or_throw(fn(inputs(), output_grads()));
    ASSERT_EQ(r.grads.size(), 1u);
    EXPECT_TRUE(r.grads[0].equal(want_grad())) << (execution == Execution::Compiled ? "compiled" : "interpreter");
    EXPECT_TRUE(r.values[0].equal(inputs()[0]));
  }
}

}  // namespace
}  // namespace kiln
