// capture(): printed graphs of small models (params named by module path, dynamic dims,
// attributes only where they differ from defaults, inline scalars), pattern mode, lifted
// constants, errors, and eager vs captured+interpreted agreement (also through replay).
#include <gtest/gtest.h>

#include "frontend/dispatch.h"
#include "frontend/replay.h"
#include "kiln/kiln.h"

namespace kiln {
namespace {

struct Mlp : nn::Module {
  nn::Linear fc1{4, 8, true, 1};
  nn::Linear fc2{8, 3, true, 3};
  Mlp() {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  Tensor forward(const Tensor& x) { return fc2(relu(fc1(x))); }
};

TEST(Capture, MlpPrintsParamsByModulePathAndDynamicBatch) {
  Mlp model;
  auto captured = capture(CaptureFn1([&](std::span<const Tensor> in) { return model.forward(in[0]); }),
                          {Tensor::randn({2, 4}, 0)}, {.dynamic = {{0, "B"}}, .name = "mlp", .module = &model});
  ASSERT_TRUE(captured) << captured.error().to_string();
  EXPECT_EQ(print_graph(*captured->graph),
            "graph @mlp(%x0: f32[B,4], %fc1.weight: param f32[8,4], %fc1.bias: param f32[8], "
            "%fc2.weight: param f32[3,8], %fc2.bias: param f32[3]) -> (f32[B,3]) {\n"
            "  %0 = linear(%x0, %fc1.weight, %fc1.bias) : f32[B,8]\n"
            "  %1 = relu(%0) : f32[B,8]\n"
            "  %2 = linear(%1, %fc2.weight, %fc2.bias) : f32[B,3]\n"
            "  return %2\n"
            "}\n");
  ASSERT_EQ(captured->lifted.size(), 4u);
  EXPECT_EQ(captured->lifted[0].storage(), model.fc1.weight.storage());
}

TEST(Capture, RecordsOnlyNonDefaultAttributesAndInlineScalars) {
  auto captured = capture(CaptureFn1([](std::span<const Tensor> in) {
                            Tensor s = in[0].sum({1}, true);
                            Tensor unused = exp(in[0]);  // dead, removed
                            return mul(s, 0.5) - in[0];
                          }),
                          {Tensor::randn({3, 4}, 1)}, {.input_names = {"x"}});
  ASSERT_TRUE(captured) << captured.error().to_string();
  EXPECT_EQ(print_graph(*captured->graph),
            "graph @main(%x: f32[3,4]) -> (f32[3,4]) {\n"
            "  %0 = sum(%x) {dim=[1], keepdim=true} : f32[3,1]\n"
            "  %1 = mul(%0, 0.5) : f32[3,1]\n"
            "  %2 = sub(%1, %x) : f32[3,4]\n"
            "  return %2\n"
            "}\n");
}

TEST(Capture, LeavesOutTrailingOptionalTensorsThatAreNone) {
  auto captured = capture(CaptureFn1([](std::span<const Tensor> in) {
                            Tensor y = linear(in[0], in[1]);             // bias left out
                            return layer_norm(y, {2}, Tensor(), in[2]);  // weight none, bias given
                          }),
                          {Tensor::randn({3, 4}, 1), Tensor::randn({2, 4}, 2), Tensor::randn({2}, 3)},
                          {.input_names = {"x", "w", "b"}});
  ASSERT_TRUE(captured) << captured.error().to_string();
  EXPECT_EQ(print_graph(*captured->graph),
            "graph @main(%x: f32[3,4], %w: f32[2,4], %b: f32[2]) -> (f32[3,2]) {\n"
            "  %0 = linear(%x, %w) : f32[3,2]\n"
            "  %1 = layer_norm(%0, none, %b) {normalized_shape=[2]} : f32[3,2]\n"
            "  return %1\n"
            "}\n");
  Tensor x = Tensor::randn({3, 4}, 4), w = Tensor::randn({2, 4}, 5), b = Tensor::randn({2}, 6);
  auto out = captured->run(std::vector<Tensor>{x, w, b});
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_TRUE((*out)[0].equal(layer_norm(linear(x, w), {2}, Tensor(), b)));
}

TEST(Capture, LiftsConcreteTensorsAsConstants) {
  Tensor c = Tensor::from_doubles({1, 2, 3}, {3});
  auto captured =
      capture(CaptureFn1([&](std::span<const Tensor> in) { return in[0] * c + c; }), {Tensor::randn({3}, 2)});
  ASSERT_TRUE(captured) << captured.error().to_string();
  const Graph& g = *captured->graph;
  ASSERT_EQ(g.num_inputs(), 2);
  EXPECT_EQ(g.input(1)->name(), "_tensor_constant0");
  EXPECT_EQ(g.input(1)->role(), InputRole::Buffer);
  ASSERT_EQ(captured->lifted.size(), 1u);
  Tensor x = Tensor::randn({3}, 3);
  auto out = captured->run(std::vector<Tensor>{x});
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_TRUE((*out)[0].equal(x * c + c));
}

TEST(Capture, ErrorsInsideTheFunctionComeBackAsDiagnostics) {
  auto captured =
      capture(CaptureFn1([](std::span<const Tensor> in) { return matmul(in[0], in[0]); }), {Tensor::zeros({2, 3})});
  ASSERT_FALSE(captured);
  EXPECT_NE(captured.error().message().find("matmul"), std::string::npos) << captured.error().to_string();
}

TEST(Capture, DynamicDimErrors) {
  auto bad_input = capture(CaptureFn1([](std::span<const Tensor> in) { return in[0]; }), {Tensor::zeros({2})},
                           {.dynamic = {{0, "B", 1}}});
  ASSERT_FALSE(bad_input);
  EXPECT_EQ(bad_input.error().message(), "capture: dynamic dim B names input 1, but there are 1 inputs");
  auto bad_dim = capture(CaptureFn1([](std::span<const Tensor> in) { return in[0]; }), {Tensor::zeros({2})},
                         {.dynamic = {{1, "B"}}});
  ASSERT_FALSE(bad_dim);
  EXPECT_EQ(bad_dim.error().message(), "capture: dynamic dim B is dim 1 of input 0, which has rank 1");
}

struct ConvBn : nn::Module {
  nn::Conv2d conv{2, 3, 3, {.padding = {1, 1}, .seed = 5}};
  nn::BatchNorm2d bn{3};
  ConvBn() {
    register_module("conv", conv);
    register_module("bn", bn);
  }
  Tensor forward(const Tensor& x) { return bn(conv(x)); }
};

int count_ops(const Graph& g, OpKind op) {
  int n = 0;
  for (Node* node : g.nodes()) n += node->op() == op;
  return n;
}

TEST(Capture, TrainingBatchNormRecordsWriteBacksThatPatternModeDrops) {
  ConvBn model;
  auto fn = CaptureFn1([&](std::span<const Tensor> in) { return model.forward(in[0]); });
  Tensor x = Tensor::randn({2, 2, 4, 4}, 6);
  auto full = capture(fn, {x}, {.module = &model});
  ASSERT_TRUE(full) << full.error().to_string();
  EXPECT_EQ(count_ops(*full->graph, OpKind::CopyInplace), 2);
  EXPECT_EQ(full->graph->input(5)->name(), "bn.running_mean");
  EXPECT_EQ(full->graph->input(5)->role(), InputRole::Buffer);

  auto pattern = capture(fn, {x}, {.for_pattern = true, .module = &model});
  ASSERT_TRUE(pattern) << pattern.error().to_string();
  EXPECT_EQ(count_ops(*pattern->graph, OpKind::CopyInplace), 0);
  // Only conv2d and batch_norm are left: the running-stat updates were dead after the copies.
  EXPECT_EQ(pattern->graph->num_nodes(), 2u) << print_graph(*pattern->graph);
}

TEST(Capture, EagerAndInterpretedAgreeExactlyForAModel) {
  ConvBn model;
  model.eval();
  auto captured = capture(CaptureFn1([&](std::span<const Tensor> in) { return model.forward(in[0]); }),
                          {Tensor::randn({2, 2, 4, 4}, 7)}, {.dynamic = {{0, "N"}}, .module = &model});
  ASSERT_TRUE(captured) << captured.error().to_string();
  Tensor x = Tensor::randn({3, 2, 4, 4}, 8);
  Tensor eager = model.forward(x);
  auto out = captured->run(std::vector<Tensor>{x});
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_TRUE((*out)[0].equal(eager));
}

TEST(Capture, ReplayEagerAndReplayCaptureAgreeWithTheOriginal) {
  Mlp model;
  auto captured = capture(CaptureFn1([&](std::span<const Tensor> in) { return softmax(model.forward(in[0]), 1); }),
                          {Tensor::randn({2, 4}, 9)}, {.dynamic = {{0, "B"}}, .module = &model});
  ASSERT_TRUE(captured) << captured.error().to_string();
  std::vector<Tensor> inputs = {Tensor::randn({5, 4}, 10)};
  inputs.insert(inputs.end(), captured->lifted.begin(), captured->lifted.end());
  auto original = interpret(*captured->graph, inputs);
  ASSERT_TRUE(original) << original.error().to_string();
  auto eager = replay_eager(*captured->graph, inputs);
  ASSERT_TRUE(eager) << eager.error().to_string();
  auto recaptured = replay_capture(*captured->graph, inputs);
  ASSERT_TRUE(recaptured) << recaptured.error().to_string();
  EXPECT_EQ(print_graph(*recaptured->graph), print_graph(*captured->graph));
  auto again = interpret(*recaptured->graph, inputs);
  ASSERT_TRUE(again) << again.error().to_string();
  EXPECT_TRUE((*eager)[0].equal((*original)[0]));
  EXPECT_TRUE((*again)[0].equal((*original)[0]));
}

TEST(Capture, ErgonomicApiThrowsKilnErrorOutsideCapture) {
  try {
    (void)matmul(Tensor::zeros({2, 3}), Tensor::zeros({2, 3}));
    FAIL() << "expected kiln::Error";
  } catch (const Error& e) {
    EXPECT_NE(e.diagnostic().message().find("matmul"), std::string::npos);
  }
}

}  // namespace
}  // namespace kiln

namespace kiln {
namespace {

TEST(CaptureErrors, ExampleInputsMustBeConcrete) {
  auto c = capture(CaptureFn1([](std::span<const Tensor> in) { return in[0]; }), {Tensor()});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(), "capture: example input 0 must be a concrete tensor");
}

TEST(CaptureErrors, OutputsMustBeDefined) {
  auto c = capture(CaptureFn1([](std::span<const Tensor>) { return Tensor(); }), {Tensor::zeros({2})});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(), "capture: output 0 of the captured function is undefined");
}

TEST(CaptureErrors, DispatchRefusesUnknownAttributes) {
  auto r = dispatch(OpKind::Sum, {KernelOperand{Tensor::zeros({2}), Scalar()}}, {{"dims", AttrValue::Ints{0}}});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "sum: no attribute named 'dims'");
}

TEST(CaptureErrors, ReplayEagerNeedsConcreteInputs) {
  Graph g("g");
  g.set_outputs({g.add_input("x", {DType::F32, Shape{2}})});
  auto r = replay_eager(g, std::vector<Tensor>{Tensor()});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "replay_eager: inputs must be concrete tensors");
}

}  // namespace
}  // namespace kiln
