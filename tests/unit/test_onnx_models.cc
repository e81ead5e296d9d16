// The model suite of the ONNX issue: an MLP (with a dynamic batch, verified at batch 1 and
// 7), a small CNN (conv, batch norm in eval and in training mode, pooling), the transformer
// block of the autograd tests and the demo's GPT, each captured, exported with its parameters
// as initializers, run in ONNX Runtime and compared with the interpreter (onnx::verify at
// its default tolerances). Skips when the project's Python environment is missing.
#include <gtest/gtest.h>

#include <filesystem>

#include "demo/gpt.h"
#include "frontend/capture.h"
#include "frontend/functional.h"
#include "frontend/nn/linear.h"
#include "model_suite.h"
#include "onnx/verify.h"
#include "transformer_block.h"

namespace kiln::onnx {
namespace {

using test_models::Mlp;
using test_models::SmallCnn;

// Verifies and prints the table; skips when verify cannot run Python at all.
void expect_verified(const Captured& c, std::span<const Tensor> inputs, const VerifyOptions& o = {}) {
  Expected<VerifyReport> r = verify(c, inputs, o);
  if (!r && (r.error().message().find("verify needs Python") != std::string::npos ||
             r.error().message().find("is missing") != std::string::npos))
    GTEST_SKIP() << r.error().message();
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_TRUE(r->passed) << r->to_table();
  ASSERT_FALSE(r->outputs.empty());
}

TEST(OnnxModels, MlpWithDynamicBatchVerifiesAtBatch1And7) {
  Mlp mlp;
  Expected<Captured> c = capture([&](std::span<const Tensor> in) { return std::vector<Tensor>{mlp.forward(in[0])}; },
                                 {Tensor::randn({7, 16}, 3)},
                                 {.dynamic = {{.dim = 0, .symbol = "B", .input = 0}}, .name = "mlp", .module = &mlp});
  ASSERT_TRUE(c) << c.error().to_string();
  VerifyOptions o;
  o.additional_inputs = {{Tensor::randn({1, 16}, 4)}};
  expect_verified(*c, std::vector<Tensor>{Tensor::randn({7, 16}, 5)}, o);
}

TEST(OnnxModels, SmallCnnVerifiesInEvalAndTrainingMode) {
  for (bool training : {false, true}) {
    SmallCnn cnn;
    cnn.train(training);
    const Tensor x = Tensor::randn({2, 3, 8, 8}, 11);
    Expected<Captured> c = capture([&](std::span<const Tensor> in) { return std::vector<Tensor>{cnn.forward(in[0])}; },
                                   {x}, {.name = "cnn", .module = &cnn});
    ASSERT_TRUE(c) << c.error().to_string();
    SCOPED_TRACE(training ? "training" : "eval");
    expect_verified(*c, std::vector<Tensor>{x});
  }
}

TEST(OnnxModels, TransformerBlockVerifies) {
  const test_models::TransformerBlockConfig config{.batch = 2, .seq = 16, .width = 32, .heads = 4, .seed = 1};
  Expected<Captured> c = test_models::capture_transformer_block(config);
  ASSERT_TRUE(c) << c.error().to_string();
  expect_verified(*c, std::vector<Tensor>{test_models::transformer_block_input(config)});
}

TEST(OnnxModels, DemoGptVerifies) {
  demo::Gpt gpt(demo::GptConfig{});
  const Tensor tokens = Tensor::randint(0, 16, {2, 16}, 5);
  Expected<Captured> c = capture([&](std::span<const Tensor> in) { return std::vector<Tensor>{gpt.forward(in[0])}; },
                                 {tokens}, {.name = "gpt", .input_names = {"tokens"}, .module = &gpt});
  ASSERT_TRUE(c) << c.error().to_string();
  expect_verified(*c, std::vector<Tensor>{tokens});
}

// Weights over the threshold go to external data beside the model, and the model still
// verifies from its file (ONNX Runtime finds the data relative to the model).
TEST(OnnxModels, WeightsOverTheThresholdGoToExternalData) {
  Mlp mlp;
  const Tensor x = Tensor::randn({3, 16}, 9);
  Expected<Captured> c = capture([&](std::span<const Tensor> in) { return std::vector<Tensor>{mlp.forward(in[0])}; },
                                 {x}, {.name = "mlp", .module = &mlp});
  ASSERT_TRUE(c) << c.error().to_string();
  Expected<ExportedModel> m = export_graph(*c->graph, c->lifted);
  ASSERT_TRUE(m) << m.error().to_string();
  const std::string dir = ::testing::TempDir() + "kiln_onnx_external";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/mlp.onnx";
  ASSERT_TRUE(m->save(path, /*external_data_threshold=*/1024));
  EXPECT_TRUE(std::filesystem::exists(path + ".data"));
  int64_t weight_bytes = 0;
  for (const Tensor& t : c->lifted) weight_bytes += t.numel() * 4;
  EXPECT_GE(static_cast<int64_t>(std::filesystem::file_size(path + ".data")), weight_bytes);
  EXPECT_LT(static_cast<int64_t>(std::filesystem::file_size(path)), weight_bytes);
  VerifyOptions o;
  o.model_path = path;
  expect_verified(*c, std::vector<Tensor>{x}, o);
  std::filesystem::remove_all(dir);
}

TEST(OnnxModels, NamesAndInitializersAsInputs) {
  Mlp mlp;
  const Tensor x = Tensor::randn({3, 16}, 9);
  Expected<Captured> c = capture([&](std::span<const Tensor> in) { return std::vector<Tensor>{mlp.forward(in[0])}; },
                                 {x}, {.name = "mlp", .module = &mlp});
  ASSERT_TRUE(c) << c.error().to_string();
  ExportOptions eo;
  eo.input_names = {"features"};
  eo.output_names = {"scores"};
  Expected<ExportedModel> m = export_graph(*c->graph, c->lifted, eo);
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->input_names(), std::vector<std::string>{"features"});
  EXPECT_EQ(m->output_names(), std::vector<std::string>{"scores"});
  eo.keep_initializers_as_inputs = true;
  m = export_graph(*c->graph, c->lifted, eo);
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->input_names().size(), 1 + c->lifted.size());  // x, then fc1.weight, fc1.bias, ...
  EXPECT_EQ(m->input_names()[1], "fc1.weight");
  eo.output_names = {"a", "b"};
  Expected<ExportedModel> bad = export_graph(*c->graph, c->lifted, eo);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("2 output names given for 1 outputs"), std::string::npos);
}

TEST(OnnxModels, MissingPythonIsAClearError) {
  Graph g;
  VerifyOptions o;
  o.python = "/nonexistent/python3";
  Expected<VerifyReport> r = verify(g, {}, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("verify needs Python to run the ONNX model"), std::string::npos)
      << r.error().message();
}

}  // namespace
}  // namespace kiln::onnx
