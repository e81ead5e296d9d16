// nn::GraphModule: a graph as a module (the way an imported .pt2 model trains and exports).
#include <gtest/gtest.h>

#include <kiln/kiln.h>

namespace kiln {
namespace {

constexpr const char* kMlp =
    R"(graph @mlp(%w: param f32[3,4], %x: f32[2,4], %b: param f32[3], %n: buffer f32[3]) -> (f32[2,3]) {
  %0 = linear(%x, %w, %b) : f32[2,3]
  %1 = add(%0, %n) : f32[2,3]
  return %1
}
)";

struct Mlp {
  std::shared_ptr<const Graph> graph = value_or_throw(parse_graph(kMlp));
  std::map<std::string, Tensor> weights = {
      {"w", Tensor::randn({3, 4}, 1)}, {"b", Tensor::randn({3}, 2)}, {"n", Tensor::randn({3}, 3)}};
};

TEST(GraphModule, ForwardComputesTheGraphWithItsWeights) {
  Mlp m;
  nn::GraphModule module(m.graph, m.weights);
  ASSERT_EQ(module.num_user_inputs(), 1);
  Tensor x = Tensor::randn({2, 4}, 4);
  std::vector<Tensor> got = module.forward(std::vector<Tensor>{x});
  std::vector<Tensor> want =
      value_or_throw(interpret(*m.graph, std::vector<Tensor>{m.weights["w"], x, m.weights["b"], m.weights["n"]}));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(got[0].equal(want[0]));
}

TEST(GraphModule, ParamsAndBuffersAreRegisteredByInputName) {
  Mlp m;
  nn::GraphModule module(m.graph, m.weights);
  auto params = module.named_parameters();
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[0].first, "w");
  EXPECT_EQ(params[1].first, "b");
  ASSERT_EQ(module.named_buffers().size(), 1u);
  EXPECT_EQ(module.named_buffers()[0].first, "n");
  // Handles sharing the weights' storage: an update in place is what the next forward reads.
  optim::assign_doubles(params[0].second, std::vector<double>(12, 0.0));
  Tensor x = Tensor::randn({2, 4}, 5);
  Tensor got = module.forward(std::vector<Tensor>{x})[0];
  std::vector<Tensor> want =
      value_or_throw(interpret(*m.graph, std::vector<Tensor>{m.weights["w"], x, m.weights["b"], m.weights["n"]}));
  EXPECT_TRUE(got.equal(want[0]));
  EXPECT_EQ(m.weights["w"].item_double(0), 0.0);
}

TEST(GraphModule, CaptureLiftsItsWeights) {
  Mlp m;
  nn::GraphModule module(m.graph, m.weights);
  Tensor x = Tensor::randn({2, 4}, 6);
  Captured c = value_or_throw(capture(CaptureFn1([&](std::span<const Tensor> in) { return module.forward(in)[0]; }),
                                      {x}, {.name = "mlp", .input_names = {"x"}, .module = &module}));
  int params = 0, buffers = 0;
  for (const Value* in : c.graph->inputs()) {
    params += in->role() == InputRole::Param;
    buffers += in->role() == InputRole::Buffer;
  }
  EXPECT_EQ(params, 2);
  EXPECT_EQ(buffers, 1);
  std::vector<Tensor> run = value_or_throw(c.run(std::vector<Tensor>{x}));
  EXPECT_TRUE(run[0].equal(module.forward(std::vector<Tensor>{x})[0]));
}

TEST(GraphModule, ATrainStepGivesEveryParameterAGradient) {
  Mlp m;
  nn::GraphModule module(m.graph, m.weights);
  auto loss = [](nn::GraphModule& g, std::span<const Tensor> batch) { return sum(g.forward(batch)[0]); };
  TrainStep step = compile_train_step(module, loss, {Tensor::randn({2, 4}, 7)}, CompileOptions{});
  StepResult r = step({Tensor::randn({2, 4}, 8)});
  ASSERT_EQ(r.grads.size(), 2u);
  EXPECT_EQ(r.grads[0].first, "w");
  EXPECT_EQ(r.grads[1].first, "b");
  // d(sum(x w^T + b + n))/db = the batch size, for each of b's elements.
  for (int64_t i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(r.grads[1].second.item_double(i), 2.0);
}

TEST(GraphModule, AMissingWeightIsAnError) {
  Mlp m;
  m.weights.erase("n");
  try {
    nn::GraphModule module(m.graph, m.weights);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("graph @mlp's buffer input %n has no tensor among the weights"),
              std::string::npos)
        << e.what();
  }
}

TEST(GraphModule, AWeightOfAnotherTypeIsAnError) {
  Mlp m;
  m.weights["b"] = Tensor::randn({4}, 9);
  try {
    nn::GraphModule module(m.graph, m.weights);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the weight for %b is f32[4], but graph @mlp takes f32[3]"), std::string::npos)
        << e.what();
  }
}

TEST(GraphModule, TheWrongNumberOfUserInputsIsAnError) {
  Mlp m;
  nn::GraphModule module(m.graph, m.weights);
  try {
    module.forward(std::vector<Tensor>{Tensor::randn({2, 4}, 1), Tensor::randn({2, 4}, 2)});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("graph @mlp takes 1 user input, got 2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln
