// The acceptance tests' transformer block (tests/model/transformer_block.h): its inputs,
// its op structure (the one tests/conformance/torch_min_cut.py mirrors), and its gradients.
#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "autograd/value_and_grad.h"
#include "ir/printer.h"
#include "transformer_block.h"

namespace kiln {
namespace {

using test_models::TransformerBlockConfig;

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(TransformerBlock, FullSizeInputsAreXThenTheNamedParameters) {
  auto block = test_models::capture_transformer_block({});
  ASSERT_TRUE(block) << block.error().to_string();
  const Graph& g = *block->graph;
  const std::vector<std::pair<std::string, std::vector<int64_t>>> want = {
      {"x", {4, 512, 1024}},      {"ln1.weight", {1024}},
      {"ln1.bias", {1024}},       {"attn.qkv.weight", {3072, 1024}},
      {"attn.qkv.bias", {3072}},  {"attn.proj.weight", {1024, 1024}},
      {"attn.proj.bias", {1024}}, {"ln2.weight", {1024}},
      {"ln2.bias", {1024}},       {"mlp.fc1.weight", {4096, 1024}},
      {"mlp.fc1.bias", {4096}},   {"mlp.fc2.weight", {1024, 4096}},
      {"mlp.fc2.bias", {1024}}};
  ASSERT_EQ(g.num_inputs(), static_cast<int>(want.size()));
  for (int i = 0; i < g.num_inputs(); ++i) {
    const auto& [name, sizes] = want[static_cast<size_t>(i)];
    EXPECT_EQ(g.input(i)->name(), name);
    EXPECT_EQ(g.input(i)->role(), i == 0 ? InputRole::Input : InputRole::Param) << name;
    EXPECT_EQ(g.input(i)->type().shape.sizes(), sizes) << name;
    EXPECT_EQ(g.input(i)->type().dtype, DType::F32) << name;
  }
  EXPECT_EQ(block->lifted.size(), want.size() - 1);
}

TEST(TransformerBlock, OpStructureMatchesTheTorchScript) {
  auto block = test_models::capture_transformer_block({.batch = 2, .seq = 8, .width = 16, .heads = 4});
  ASSERT_TRUE(block) << block.error().to_string();
  const std::string text = print_graph(*block->graph);
  EXPECT_EQ(count(text, " = layer_norm("), 2) << text;
  EXPECT_EQ(count(text, " = linear("), 4) << text;
  EXPECT_EQ(count(text, " = matmul("), 2) << text;
  EXPECT_EQ(count(text, " = triu("), 1) << text;
  EXPECT_EQ(count(text, " = masked_fill("), 1) << text;
  EXPECT_EQ(count(text, " = softmax("), 1) << text;
  EXPECT_EQ(count(text, "approximate=\"tanh\""), 1) << text;
  EXPECT_EQ(count(text, " -> (f32[]) {"), 1) << text;
}

TEST(TransformerBlock, HeadsMustDivideWidth) {
  auto block = test_models::capture_transformer_block({.batch = 1, .seq = 4, .width = 10, .heads = 4});
  ASSERT_FALSE(block);
  EXPECT_EQ(block.error().message(), "transformer block: heads (4) must divide width (10)");
}

// value_and_grad runs the joint graph: one gradient per input, the loss equal to a plain run.
TEST(TransformerBlock, GradientsHaveTheInputsShapesAndAreFinite) {
  const TransformerBlockConfig config{.batch = 2, .seq = 8, .width = 16, .heads = 4, .seed = 3};
  auto block = test_models::capture_transformer_block(config);
  ASSERT_TRUE(block) << block.error().to_string();
  std::vector<Tensor> inputs = {test_models::transformer_block_input(config)};
  inputs.insert(inputs.end(), block->lifted.begin(), block->lifted.end());
  auto result = value_and_grad(*block->graph, inputs);
  ASSERT_TRUE(result) << result.error().to_string();
  ASSERT_EQ(result->grads.size(), inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(result->grads[i].sizes(), inputs[i].sizes()) << i;
    for (int64_t e = 0; e < result->grads[i].numel(); ++e)
      ASSERT_TRUE(std::isfinite(result->grads[i].item_double(e))) << "input " << i << " element " << e;
  }
  auto loss = block->run(std::span<const Tensor>(inputs.data(), 1));
  ASSERT_TRUE(loss) << loss.error().to_string();
  EXPECT_TRUE((*loss)[0].equal(result->values[0]));
}

}  // namespace
}  // namespace kiln
