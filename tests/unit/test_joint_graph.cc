// The joint graph (autograd/joint_graph.h) on small parsed graphs: its exact printed form,
// tangents, wrt selection, the errors it reports; and value_and_grad against float64 central
// differences.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "autograd/joint_graph.h"
#include "autograd/value_and_grad.h"
#include "frontend/functional.h"
#include "ir/parser.h"
#include "ir/printer.h"

namespace kiln {
namespace {

std::unique_ptr<Graph> parse(std::string_view text) {
  auto g = parse_graph(text);
  EXPECT_TRUE(g.has_value()) << g.error().to_string();
  return std::move(*g);
}

std::string joint_text(const Graph& forward, const JointOptions& options = {}) {
  Expected<JointGraph> joint = joint_graph(forward, options);
  EXPECT_TRUE(joint.has_value()) << joint.error().to_string();
  return joint ? print_graph(*joint->graph) : std::string();
}

std::string joint_error(const Graph& forward, const JointOptions& options = {}) {
  Expected<JointGraph> joint = joint_graph(forward, options);
  EXPECT_FALSE(joint.has_value());
  return joint ? std::string() : joint.error().message();
}

constexpr std::string_view kDot = R"(graph @dot(%x: f32[3], %w: param f32[3]) -> (f32[]) {
  %0 = mul(%x, %w) : f32[3]
  %1 = sum(%0) : f32[]
  return %1
}
)";

// Gradients follow the forward, in reverse; tangent0 seeds the loss.
constexpr std::string_view kDotJoint =
    R"(graph @dot_joint(%x: f32[3], %w: param f32[3], %tangent0: tangent f32[]) -> (f32[], f32[3], f32[3]) {
  %0 = mul(%x, %w) : f32[3]
  %1 = sum(%0) : f32[]
  %2 = unsqueeze(%tangent0) {dim=0} : f32[1]
  %3 = expand(%2) {size=[3]} : f32[3]
  %4 = mul(%3, %w) : f32[3]
  %5 = mul(%3, %x) : f32[3]
  return %1, %4, %5
}
)";

TEST(JointGraph, SumOfProductGradsOfBoth) {
  auto g = parse(kDot);
  Expected<JointGraph> joint = joint_graph(*g);
  ASSERT_TRUE(joint.has_value()) << joint.error().to_string();
  EXPECT_EQ(joint->num_primals, 2);
  EXPECT_EQ(joint->num_forward_outputs, 1);
  EXPECT_EQ(joint->tangent_input, (std::vector<int>{2}));
  EXPECT_EQ(joint->wrt_inputs, (std::vector<int>{0, 1}));
  EXPECT_EQ(joint->graph->input(2)->role(), InputRole::Tangent);
  EXPECT_EQ(print_graph(*joint->graph), kDotJoint);
}

// x is used twice by mul: its two gradients are added.
constexpr std::string_view kSquareJoint =
    R"(graph @square_joint(%x: f32[3], %tangent0: tangent f32[]) -> (f32[], f32[3]) {
  %0 = mul(%x, %x) : f32[3]
  %1 = sum(%0) : f32[]
  %2 = unsqueeze(%tangent0) {dim=0} : f32[1]
  %3 = expand(%2) {size=[3]} : f32[3]
  %4 = mul(%3, %x) : f32[3]
  %5 = mul(%3, %x) : f32[3]
  %6 = add(%4, %5) : f32[3]
  return %1, %6
}
)";

TEST(JointGraph, InputUsedTwiceAccumulates) {
  auto g = parse(R"(graph @square(%x: f32[3]) -> (f32[]) {
  %0 = mul(%x, %x) : f32[3]
  %1 = sum(%0) : f32[]
  return %1
}
)");
  EXPECT_EQ(joint_text(*g), kSquareJoint);
}

TEST(JointGraph, IntegerOutputGetsNoTangent) {
  auto g = parse(R"(graph @f(%x: f32[3]) -> (i64[], f32[3]) {
  %0 = argmax(%x) : i64[]
  %1 = neg(%x) : f32[3]
  return %0, %1
}
)");
  Expected<JointGraph> joint = joint_graph(*g);
  ASSERT_TRUE(joint.has_value()) << joint.error().to_string();
  EXPECT_EQ(joint->tangent_input, (std::vector<int>{-1, 1}));
  EXPECT_EQ(joint->graph->num_inputs(), 2);
  EXPECT_EQ(joint->graph->input(1)->name(), "tangent1");
}

// An output that is a differentiated input, or a view of one, carries its gradient to it.
TEST(JointGraph, OutputsThatAliasInputsCarryTheirGradient) {
  auto g = parse(R"(graph @id(%x: f32[2,3]) -> (f32[2,3], f32[3,2], f32[2,3]) {
  %0 = transpose(%x) {dim0=0, dim1=1} : f32[3,2]
  %1 = neg(%x) : f32[2,3]
  return %x, %0, %1
}
)");
  EXPECT_EQ(
      joint_text(*g),
      R"(graph @id_joint(%x: f32[2,3], %tangent0: tangent f32[2,3], %tangent1: tangent f32[3,2], %tangent2: tangent f32[2,3]) -> (f32[2,3], f32[3,2], f32[2,3], f32[2,3]) {
  %0 = transpose(%x) {dim0=0, dim1=1} : f32[3,2]
  %1 = neg(%x) : f32[2,3]
  %2 = neg(%tangent2) : f32[2,3]
  %3 = add(%tangent0, %2) : f32[2,3]
  %4 = transpose(%tangent1) {dim0=0, dim1=1} : f32[2,3]
  %5 = add(%3, %4) : f32[2,3]
  return %x, %0, %1, %5
}
)");
  Expected<JointGraph> joint = joint_graph(*g);
  ASSERT_TRUE(joint.has_value());
  EXPECT_EQ(joint->output_grad,
            (std::vector<OutputGradKind>{OutputGradKind::Tangent, OutputGradKind::Tangent, OutputGradKind::Tangent}));
  EXPECT_EQ(joint->tangent_input, (std::vector<int>{1, 2, 3}));
}

// An output that aliases an input no gradient is asked for takes no tangent.
TEST(JointGraph, OutputsThatAliasUndifferentiatedInputsGetNoTangent) {
  auto g = parse(R"(graph @f(%x: f32[2,3], %w: f32[2,3]) -> (f32[3,2], f32[2,3]) {
  %0 = transpose(%x) {dim0=0, dim1=1} : f32[3,2]
  %1 = mul(%x, %w) : f32[2,3]
  return %0, %1
}
)");
  Expected<JointGraph> joint = joint_graph(*g, {.wrt = {"w"}});
  ASSERT_TRUE(joint.has_value()) << joint.error().to_string();
  EXPECT_EQ(joint->output_grad, (std::vector<OutputGradKind>{OutputGradKind::NoGradient, OutputGradKind::Tangent}));
  EXPECT_EQ(joint->tangent_input, (std::vector<int>{-1, 2}));
}

TEST(JointGraph, OutputsNoDifferentiatedInputReachesGetNoTangent) {
  auto g = parse(R"(graph @f(%x: f32[3], %w: param f32[3]) -> (f32[3], f32[3], i64[]) {
  %0 = exp(%x) : f32[3]
  %1 = mul(%0, %w) : f32[3]
  %2 = argmax(%1) : i64[]
  return %0, %1, %2
}
)");
  Expected<JointGraph> joint = joint_graph(*g, {.wrt = {"w"}});
  ASSERT_TRUE(joint.has_value()) << joint.error().to_string();
  EXPECT_EQ(joint->output_grad, (std::vector<OutputGradKind>{OutputGradKind::NoGradient, OutputGradKind::Tangent,
                                                             OutputGradKind::NotDifferentiable}));
  EXPECT_EQ(joint->tangent_input, (std::vector<int>{-1, 2, -1}));
  EXPECT_EQ(output_grad_kind_name(OutputGradKind::NoGradient), "no_gradient");
}

TEST(JointGraph, BodiesGiveEveryFloatingOutputATangent) {
  auto g = parse(R"(graph @id(%x: f32[3]) -> (f32[3]) {
  return %x
}
)");
  EXPECT_EQ(joint_text(*g, {.wrt = {}, .tangents = TangentPolicy::EveryFloatingOutput}),
            R"(graph @id_joint(%x: f32[3], %tangent0: tangent f32[3]) -> (f32[3], f32[3]) {
  return %x, %tangent0
}
)");
}

TEST(JointGraph, WrtSelectsInputs) {
  auto g = parse(kDot);
  Expected<JointGraph> joint = joint_graph(*g, {.wrt = {"w"}});
  ASSERT_TRUE(joint.has_value()) << joint.error().to_string();
  EXPECT_EQ(joint->wrt_inputs, (std::vector<int>{1}));
  EXPECT_EQ(joint->graph->outputs().size(), 2u);
}

TEST(JointGraph, WrtLeavesOtherGradientsOut) {
  auto g = parse(kDot);
  EXPECT_EQ(joint_text(*g, {.wrt = {"w"}}),
            R"(graph @dot_joint(%x: f32[3], %w: param f32[3], %tangent0: tangent f32[]) -> (f32[], f32[3]) {
  %0 = mul(%x, %w) : f32[3]
  %1 = sum(%0) : f32[]
  %2 = unsqueeze(%tangent0) {dim=0} : f32[1]
  %3 = expand(%2) {size=[3]} : f32[3]
  %4 = mul(%3, %x) : f32[3]
  return %1, %4
}
)");
}

TEST(JointGraph, NoGradientThroughNonDifferentiableOp) {
  // floor has no gradient: x gets only the gradient through mul's second operand.
  auto g = parse(R"(graph @f(%x: f32[3]) -> (f32[3]) {
  %0 = floor(%x) : f32[3]
  %1 = mul(%0, %x) : f32[3]
  return %1
}
)");
  EXPECT_EQ(joint_text(*g), R"(graph @f_joint(%x: f32[3], %tangent0: tangent f32[3]) -> (f32[3], f32[3]) {
  %0 = floor(%x) : f32[3]
  %1 = mul(%0, %x) : f32[3]
  %2 = mul(%tangent0, %0) : f32[3]
  return %1, %2
}
)");
}

TEST(JointGraph, WrtDefaultSkipsBuffersAndIntegers) {
  auto g = parse(R"(graph @f(%x: f32[3], %i: i64[3], %m: buffer f32[3]) -> (f32[3]) {
  return %x
}
)");
  Expected<JointGraph> joint = joint_graph(*g);
  ASSERT_TRUE(joint.has_value()) << joint.error().to_string();
  EXPECT_EQ(joint->wrt_inputs, (std::vector<int>{0}));
}

TEST(JointGraph, WrtUnknownNameIsAnError) {
  auto g = parse(kDot);
  EXPECT_EQ(joint_error(*g, {.wrt = {"v"}}), "joint_graph: wrt names no input 'v' of graph @dot (inputs: x, w)");
}

TEST(JointGraph, WrtIntegerInputIsAnError) {
  auto g = parse(R"(graph @f(%x: f32[3], %i: i64[3]) -> (f32[3]) {
  return %x
}
)");
  EXPECT_EQ(joint_error(*g, {.wrt = {"i"}}),
            "joint_graph: cannot differentiate with respect to input 'i' of type i64[3]: only floating inputs have "
            "gradients");
}

TEST(JointGraph, UnreachedInputGetsZeros) {
  auto g = parse(R"(graph @f(%x: f32[3], %y: f32[2]) -> (f32[3]) {
  %0 = neg(%x) : f32[3]
  return %0
}
)");
  EXPECT_EQ(joint_text(*g),
            R"(graph @f_joint(%x: f32[3], %y: f32[2], %tangent0: tangent f32[3]) -> (f32[3], f32[3], f32[2]) {
  %0 = neg(%x) : f32[3]
  %1 = neg(%tangent0) : f32[3]
  %2 = zeros_like(%y) : f32[2]
  return %0, %1, %2
}
)");
}

// A doubling loop: the example of an op kiln does not differentiate (derivatives.def).
constexpr std::string_view kLoop = R"(graph @f(%i: i64[], %x: f32[4], %w: param f32[4]) -> (f32[4]) {
  %0, %1 = while_loop(%i, %x) : (i64[], f32[4]) {
    cond_fn = graph(%j: i64[], %y: f32[4]) -> (bool[]) {
      %0 = lt(%j, 5) : bool[]
      return %0
    }
    body_fn = graph(%j: i64[], %y: f32[4]) -> (i64[], f32[4]) {
      %0 = add(%j, 1) : i64[]
      %1 = mul(%y, 2.0) : f32[4]
      return %0, %1
    }
  }
  %2 = mul(%1, %w) : f32[4]
  return %2
}
)";

TEST(JointGraph, UnsupportedOpOnPathIsAnErrorNamingTheNode) {
  auto g = parse(kLoop);
  EXPECT_EQ(joint_error(*g),
            "joint_graph: cannot differentiate while_loop: reverse mode through a loop whose trip count depends on "
            "the data is not supported (torch.while_loop has no autograd either); use scan when the trip count is "
            "known (at %0, %1 = while_loop(%i, %x) : (i64[], f32[4]) {cond_fn = graph(%j: i64[], %y: f32[4]) -> "
            "(bool[]) {...}, body_fn = graph(%j: i64[], %y: f32[4]) -> (i64[], f32[4]) {...}})");
}

TEST(JointGraph, UnsupportedOpOffPathIsNotDifferentiated) {
  // Only w is differentiated; the loop reads only x, so kiln need not differentiate it.
  auto g = parse(kLoop);
  Expected<JointGraph> joint = joint_graph(*g, {.wrt = {"w"}});
  ASSERT_TRUE(joint.has_value()) << joint.error().to_string();
}

TEST(JointGraph, UnsupportedOpOnPathToNoOutputIsNotDifferentiated) {
  // The loop reads x but only its integer counter is returned: no gradient reaches it.
  auto g = parse(R"(graph @f(%i: i64[], %x: f32[4]) -> (i64[]) {
  %0, %1 = while_loop(%i, %x) : (i64[], f32[4]) {
    cond_fn = graph(%j: i64[], %y: f32[4]) -> (bool[]) {
      %0 = lt(%j, 5) : bool[]
      return %0
    }
    body_fn = graph(%j: i64[], %y: f32[4]) -> (i64[], f32[4]) {
      %0 = add(%j, 1) : i64[]
      %1 = mul(%y, 2.0) : f32[4]
      return %0, %1
    }
  }
  return %0
}
)");
  Expected<JointGraph> joint = joint_graph(*g);
  ASSERT_TRUE(joint.has_value()) << joint.error().to_string();
}

TEST(JointGraph, CondIsDifferentiatedByACondOverTheBranchGradients) {
  auto g = parse(R"(graph @branch(%p: bool[], %x: f32[4]) -> (f32[4]) {
  %0 = cond(%p, %x) : f32[4] {
    true_fn = graph(%a: f32[4]) -> (f32[4]) {
      %0 = neg(%a) : f32[4]
      return %0
    }
    false_fn = graph(%a: f32[4]) -> (f32[4]) {
      return %a
    }
  }
  return %0
}
)");
  // The backward branches read only the tangent, so x is not an operand of the backward cond.
  EXPECT_EQ(joint_text(*g),
            R"(graph @branch_joint(%p: bool[], %x: f32[4], %tangent0: tangent f32[4]) -> (f32[4], f32[4]) {
  %0 = cond(%p, %x) : f32[4] {
    true_fn = graph(%a: f32[4]) -> (f32[4]) {
      %0 = neg(%a) : f32[4]
      return %0
    }
    false_fn = graph(%a: f32[4]) -> (f32[4]) {
      return %a
    }
  }
  %1 = cond(%p, %tangent0) : f32[4] {
    true_fn = graph(%tangent0: f32[4]) -> (f32[4]) {
      %0 = neg(%tangent0) : f32[4]
      return %0
    }
    false_fn = graph(%tangent0: f32[4]) -> (f32[4]) {
      return %tangent0
    }
  }
  return %0, %1
}
)");
}

// In-place ops are functionalized first; the mutated input's new value is a write-back output
// (no tangent), and the gradient is with respect to the input's value on entry.
TEST(JointGraph, InplaceOpsAreFunctionalizedFirst) {
  auto g = parse(R"(graph @f(%x: f32[3], %s: buffer f32[3]) -> (f32[3]) {
  %0 = mul_(%x, 2) : f32[3]
  %1 = exp(%0) : f32[3]
  %2 = add_(%s, %1) : f32[3]
  return %1
}
)");
  EXPECT_EQ(
      joint_text(*g),
      R"(graph @f_joint(%x: f32[3], %s: buffer f32[3], %tangent0: tangent f32[3]) -> (f32[3], f32[3], f32[3], f32[3]) {
  %0 = mul(%x, 2) : f32[3]
  %1 = exp(%0) : f32[3]
  %2 = add(%s, %1) : f32[3]
  %3 = mul(%tangent0, %1) : f32[3]
  %4 = mul(%3, 2) : f32[3]
  return %1, %0, %2, %4
}
)");
  Expected<JointGraph> joint = joint_graph(*g);
  ASSERT_TRUE(joint.has_value());
  EXPECT_EQ(joint->num_user_outputs, 1);
  EXPECT_EQ(joint->num_forward_outputs, 3);
  EXPECT_EQ(joint->write_back_inputs, (std::vector<int>{0, 1}));
  EXPECT_EQ(joint->output_grad, (std::vector<OutputGradKind>{OutputGradKind::Tangent, OutputGradKind::WriteBack,
                                                             OutputGradKind::WriteBack}));

  // value_and_grad writes the new values back into the inputs.
  Tensor x = Tensor::from_doubles({0.0, 0.5, 1.0}, {3}, DType::F32);
  Tensor s = Tensor::zeros({3});
  std::vector<Tensor> inputs = {x, s};
  Expected<ValueAndGrad> r = value_and_grad(*g, inputs);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  ASSERT_EQ(r->values.size(), 1u);
  EXPECT_TRUE(x.equal(Tensor::from_doubles({0.0, 1.0, 2.0}, {3}, DType::F32)));
  EXPECT_TRUE(s.equal(r->values[0]));
  ASSERT_EQ(r->grads.size(), 1u);  // x only: s is a buffer
  EXPECT_TRUE(r->grads[0].equal(mul(r->values[0], Tensor::scalar(2.0, DType::F32))));
}

// ---- value_and_grad ----

constexpr std::string_view kTanhLayer = R"(graph @layer(%x: f64[4], %w: param f64[4], %b: param f64[]) -> (f64[]) {
  %0 = mul(%x, %w) : f64[4]
  %1 = add(%0, %b) : f64[4]
  %2 = tanh(%1) : f64[4]
  %3 = sum(%2) : f64[]
  return %3
}
)";

TEST(ValueAndGrad, MatchesCentralDifferences) {
  auto g = parse(kTanhLayer);
  std::vector<std::vector<double>> values = {{0.3, -1.2, 0.7, 2.0}, {0.5, 0.25, -0.8, 0.1}, {0.2}};
  std::vector<std::vector<int64_t>> sizes = {{4}, {4}, {}};
  auto tensors = [&](const std::vector<std::vector<double>>& v) {
    std::vector<Tensor> t;
    for (size_t i = 0; i < v.size(); ++i) t.push_back(Tensor::from_doubles(v[i], sizes[i], DType::F64));
    return t;
  };
  auto loss = [&](const std::vector<std::vector<double>>& v) {
    Expected<ValueAndGrad> r = value_and_grad(*g, tensors(v));
    EXPECT_TRUE(r.has_value()) << r.error().to_string();
    return r->values[0].item_double();
  };

  Expected<ValueAndGrad> r = value_and_grad(*g, tensors(values));
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  ASSERT_EQ(r->values.size(), 1u);
  ASSERT_EQ(r->grads.size(), 3u);
  constexpr double h = 1e-6;
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(r->grads[i].sizes(), sizes[i]);
    for (size_t e = 0; e < values[i].size(); ++e) {
      auto plus = values, minus = values;
      plus[i][e] += h;
      minus[i][e] -= h;
      const double numeric = (loss(plus) - loss(minus)) / (2 * h);
      EXPECT_NEAR(r->grads[i].item_double(static_cast<int64_t>(e)), numeric, 1e-7) << "input " << i << " element " << e;
    }
  }
}

TEST(ValueAndGrad, OutputGradsScaleTheGradient) {
  auto g = parse(kDot);
  std::vector<Tensor> inputs = {Tensor::from_doubles({1, 2, 3}, {3}, DType::F32),
                                Tensor::from_doubles({4, 5, 6}, {3}, DType::F32)};
  std::vector<Tensor> output_grads = {Tensor::scalar(2.0, DType::F32)};
  Expected<ValueAndGrad> r = value_and_grad(*g, inputs, output_grads);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_EQ(r->values[0].item_double(), 32.0);
  for (int64_t e = 0; e < 3; ++e) {
    EXPECT_EQ(r->grads[0].item_double(e), 2.0 * inputs[1].item_double(e));
    EXPECT_EQ(r->grads[1].item_double(e), 2.0 * inputs[0].item_double(e));
  }
}

TEST(ValueAndGrad, WrongNumberOfOutputGradsIsAnError) {
  auto g = parse(kDot);
  std::vector<Tensor> inputs = {Tensor::zeros({3}), Tensor::zeros({3})};
  std::vector<Tensor> output_grads = {Tensor::scalar(1.0, DType::F32), Tensor::scalar(1.0, DType::F32)};
  Expected<ValueAndGrad> r = value_and_grad(*g, inputs, output_grads);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message(),
            "value_and_grad: graph @dot has 1 outputs that take a gradient, given 2 output gradients");
}

TEST(ValueAndGrad, WrongNumberOfInputsIsAnError) {
  auto g = parse(kDot);
  std::vector<Tensor> inputs = {Tensor::zeros({3})};
  Expected<ValueAndGrad> r = value_and_grad(*g, inputs);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message(), "value_and_grad: graph @dot takes 2 inputs, given 1");
}

}  // namespace
}  // namespace kiln

namespace kiln {
namespace {

TEST(JointGraphErrors, SymbolicShapesAreRefusedWithTheNode) {
  auto g = parse_graph(R"(graph @g(%x: f32[B,4]) -> (f32[]) {
  %0 = exp(%x) : f32[B,4]
  %1 = sum(%0) : f32[]
  return %1
})");
  ASSERT_TRUE(g) << g.error().to_string();
  auto joint = joint_graph(**g);
  ASSERT_FALSE(joint);
  EXPECT_NE(joint.error().message().find("joint_graph: symbolic shapes are not differentiable yet (operand f32[B,4]"),
            std::string::npos)
      << joint.error().message();
}

}  // namespace
}  // namespace kiln
