// The model suite (an MLP, a small CNN with batch norm in training mode
// and pooling, the transformer block of the autograd tests, the demo's GPT with its
// cross-entropy loss) through compiled forward and backward graphs: the loss and every
// gradient of the CPU backend match the reference interpreter's, within float32 rounding
// (kiln's kernels compute in float where the interpreter computes in double, and the matmul
// libraries sum in their own order).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cpu_backend_util.h"
#include "demo/gpt.h"
#include "frontend/capture.h"
#include "frontend/functional.h"
#include "frontend/nn/linear.h"
#include "model_suite.h"
#include "train/grad_function.h"
#include "transformer_block.h"

namespace kiln {
namespace {

using test_models::Mlp;
using test_models::SmallCnn;

GradFunction grad_function(const Captured& c, Execution execution) {
  GradOptions o{.runner = {.execution = execution, .backends = {.cpu = {.compile = test_compile_options()}}}};
  Expected<GradFunction> fn = GradFunction::create(*c.graph, c.lifted, o);
  EXPECT_TRUE(fn) << fn.error().to_string();
  return std::move(*fn);
}

// Every element of `got` within rtol * `scale` of `want`: the scale is the largest magnitude of all
// the values compared (a gradient that is zero in exact arithmetic, as a conv bias's under batch
// norm, is rounding noise of the size of the others' errors).
void expect_close(const Tensor& got, const Tensor& want, double tol, const std::string& what) {
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_NEAR(got.item_double(i), want.item_double(i), tol) << what << ", element " << i;
}

double largest_magnitude(const std::vector<Tensor>& ts) {
  double m = 0;
  for (const Tensor& t : ts)
    for (int64_t i = 0; i < t.numel(); ++i) m = std::max(m, std::fabs(t.item_double(i)));
  return m;
}

// Compiles the gradients of `c` for the CPU and for the interpreter and compares them on each
// of `batches` (inputs without the lifted values): outputs within rtol of the largest output,
// gradients within rtol of the largest gradient.
void expect_compiled_gradients_match(const Captured& c, const std::vector<std::vector<Tensor>>& batches,
                                     double rtol = 1e-4) {
  const GradFunction interpreted = grad_function(c, Execution::Interpreter);
  const GradFunction compiled = grad_function(c, Execution::Compiled);
  for (size_t b = 0; b < batches.size(); ++b) {
    SCOPED_TRACE("batch " + std::to_string(b));
    Expected<ValueAndGrad> want = interpreted(batches[b]);
    Expected<ValueAndGrad> got = compiled(batches[b]);
    ASSERT_TRUE(want) << want.error().to_string();
    ASSERT_TRUE(got) << got.error().to_string();
    ASSERT_EQ(got->values.size(), want->values.size());
    const double value_tol = rtol * std::max(1.0, largest_magnitude(want->values));
    for (size_t k = 0; k < want->values.size(); ++k)
      expect_close(got->values[k], want->values[k], value_tol, "output " + std::to_string(k));
    ASSERT_EQ(got->grads.size(), want->grads.size());
    ASSERT_FALSE(want->grads.empty());
    const double grad_tol = rtol * largest_magnitude(want->grads);
    const std::vector<int>& wrt = compiled.joint().wrt_inputs;
    for (size_t k = 0; k < want->grads.size(); ++k)
      expect_close(got->grads[k], want->grads[k], grad_tol, "gradient of %" + c.graph->input(wrt[k])->name());
  }
}

// Two batches through one compiled step (autograd does not take symbolic shapes yet; compile()'s
// tests cover a dynamic batch at inference).
TEST(CpuModelGradients, Mlp) {
  Mlp mlp;
  Expected<Captured> c =
      capture([&](std::span<const Tensor> in) { return std::vector<Tensor>{mse_loss(mlp.forward(in[0]), in[1])}; },
              {Tensor::randn({7, 16}, 3), Tensor::randn({7, 4}, 4)}, {.module = &mlp});
  ASSERT_TRUE(c) << c.error().to_string();
  expect_compiled_gradients_match(*c, {{Tensor::randn({7, 16}, 5), Tensor::randn({7, 4}, 6)},
                                       {Tensor::randn({7, 16}, 7), Tensor::randn({7, 4}, 8)}});
}

// Batch norm in training mode: batch statistics in the loss, running statistics written back.
TEST(CpuModelGradients, SmallCnnInTrainingMode) {
  SmallCnn cnn;
  cnn.train(true);
  Expected<Captured> c =
      capture([&](std::span<const Tensor> in) { return std::vector<Tensor>{sum(mul(cnn.forward(in[0]), in[1]))}; },
              {Tensor::randn({2, 3, 8, 8}, 11), Tensor::randn({2, 10}, 12)}, {.module = &cnn});
  ASSERT_TRUE(c) << c.error().to_string();
  expect_compiled_gradients_match(*c, {{Tensor::randn({2, 3, 8, 8}, 13), Tensor::randn({2, 10}, 14)}});
}

TEST(CpuModelGradients, TransformerBlock) {
  const test_models::TransformerBlockConfig config{.batch = 2, .seq = 16, .width = 32, .heads = 4, .seed = 1};
  Expected<Captured> c = test_models::capture_transformer_block(config);
  ASSERT_TRUE(c) << c.error().to_string();
  expect_compiled_gradients_match(*c, {{test_models::transformer_block_input(config)}});
}

// Embeddings (an index with a gradient that scatters), causal attention, layer norms and the
// cross-entropy loss over integer targets.
TEST(CpuModelGradients, DemoGpt) {
  demo::Gpt gpt(demo::GptConfig{});
  Expected<Captured> c =
      capture([&](std::span<const Tensor> in) { return std::vector<Tensor>{gpt.loss(in[0], in[1])}; },
              {Tensor::randint(0, 16, {2, 16}, 5), Tensor::randint(0, 16, {2, 16}, 6)},
              {.name = "gpt", .input_names = {"tokens", "targets"}, .module = &gpt});
  ASSERT_TRUE(c) << c.error().to_string();
  expect_compiled_gradients_match(*c, {{Tensor::randint(0, 16, {2, 16}, 7), Tensor::randint(0, 16, {2, 16}, 8)}});
}

}  // namespace
}  // namespace kiln
