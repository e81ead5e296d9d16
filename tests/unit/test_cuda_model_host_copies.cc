// Which ops the model suite's training programs run on the host when compiled for CUDA (extern
// kernels that no cuBLASLt call runs: docs/CUDA.md; today none), found without a GPU by lowering the forward
// and backward graphs, partitioned as training partitions them, for the CUDA backend. A change
// here is a change to what training on the GPU copies through the host;
// tests/gpu/cuda_training_gpu_test.cc prints the same lists from the programs it runs.
#include <gtest/gtest.h>

#include <string>

#include "backend/compile_graph.h"
#include "demo/gpt.h"
#include "frontend/capture.h"
#include "frontend/functional.h"
#include "model_suite.h"
#include "ops/op_info.h"
#include "runtime/cuda/cublaslt_matmul.h"
#include "runtime/cuda/cuda_backend.h"
#include "train/compile_options.h"
#include "transformer_block.h"

namespace kiln {
namespace {

std::string host_copied(const Graph& g) {
  Expected<LoopProgram> p = lower_graph_for(g, CudaBackend());
  if (!p) return "error: " + p.error().to_string();
  std::string ops;
  for (OpKind op : host_copied_ops(*p)) ops += (ops.empty() ? "" : ", ") + std::string(op_info(op).name());
  return ops.empty() ? "none" : ops;
}

// "forward: ...; backward: ..." for the gradients of `c`'s loss with training's defaults.
std::string training_host_copies(const Expected<Captured>& c) {
  if (!c) return "error: " + c.error().to_string();
  Expected<GradFunction> fn = GradFunction::create(*c->graph, c->lifted, grad_options(CompileOptions{}, {}));
  if (!fn) return "error: " + fn.error().to_string();
  return "forward: " + host_copied(*fn->partition().forward) + "; backward: " + host_copied(*fn->partition().backward);
}

TEST(CudaModelHostCopies, MlpRunsEveryOpOnTheDevice) {
  test_models::Mlp mlp;
  auto loss = [&](std::span<const Tensor> in) { return std::vector<Tensor>{mse_loss(mlp.forward(in[0]), in[1])}; };
  const std::vector<Tensor> batch = {Tensor::randn({7, 16}, 3), Tensor::randn({7, 4}, 4)};
  EXPECT_EQ(training_host_copies(capture(loss, batch, {.module = &mlp})), "forward: none; backward: none");
}

// The CUDA backend decomposes conv2d into im2col and one matmul per group (its backward into
// matmuls per kernel tap), which cuBLASLt runs.
TEST(CudaModelHostCopies, SmallCnnRunsEveryOpOnTheDevice) {
  test_models::SmallCnn cnn;
  cnn.train(true);
  auto loss = [&](std::span<const Tensor> in) { return std::vector<Tensor>{sum(mul(cnn.forward(in[0]), in[1]))}; };
  const std::vector<Tensor> batch = {Tensor::randn({2, 3, 8, 8}, 11), Tensor::randn({2, 10}, 12)};
  EXPECT_EQ(training_host_copies(capture(loss, batch, {.module = &cnn})), "forward: none; backward: none");
}

// Attention's backward multiplies by the heads read out of [batch, seq, heads, dim] as [batch,
// heads, seq, dim] (batch dims that do not collapse to one stride: a cuBLASLt call per batch
// index), and the sum loss's fc2 weight gradient, an mm of the broadcast tangent flattened, folds
// into sums (passes/fold_uniform_matmuls.h).
TEST(CudaModelHostCopies, TransformerBlockRunsEveryOpOnTheDevice) {
  const test_models::TransformerBlockConfig config{.batch = 2, .seq = 16, .width = 32, .heads = 4, .seed = 1};
  EXPECT_EQ(training_host_copies(test_models::capture_transformer_block(config)), "forward: none; backward: none");
}

TEST(CudaModelHostCopies, DemoGptRunsEveryOpOnTheDevice) {
  demo::Gpt gpt(demo::GptConfig{});
  auto loss = [&](std::span<const Tensor> in) { return std::vector<Tensor>{gpt.loss(in[0], in[1])}; };
  EXPECT_EQ(training_host_copies(capture(loss, {Tensor::randint(0, 16, {2, 16}, 5), Tensor::randint(0, 16, {2, 16}, 6)},
                                         {.module = &gpt})),
            "forward: none; backward: none");
}

}  // namespace
}  // namespace kiln
