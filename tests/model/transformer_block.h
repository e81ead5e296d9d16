// The model of the autograd acceptance tests: one pre-norm transformer block (layer norm,
// qkv projection, causal attention written by hand with matmul and softmax, an MLP with
// tanh-gelu, residuals) reduced to a scalar loss, captured as a kiln graph. The same block
// in PyTorch is tests/conformance/torch_min_cut.py; both must keep the same op structure.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/tensor.h"
#include "frontend/capture.h"
#include "frontend/nn/module.h"
#include "support/diagnostic.h"

namespace kiln::test_models {

struct TransformerBlockConfig {
  int64_t batch = 4;
  int64_t seq = 512;
  int64_t width = 1024;
  int64_t heads = 16;  // must divide width
  uint64_t seed = 0;   // parameters and the example input are drawn from it
};

// Graph @transformer_block(%x: f32[batch, seq, width], params...) -> (f32[]):
//   h = x + attn.proj(attention(ln1(x))),  out = h + mlp.fc2(gelu_tanh(mlp.fc1(ln2(h)))),
//   loss = sum(out).
// Parameters are inputs of role `param` named ln1.weight, ln1.bias, attn.qkv.weight,
// attn.qkv.bias, attn.proj.weight, attn.proj.bias, ln2.weight, ln2.bias, mlp.fc1.weight,
// mlp.fc1.bias, mlp.fc2.weight, mlp.fc2.bias; their values are Captured::lifted.
// The causal mask is computed in the graph (triu of ones). Fails for heads not dividing width.
Expected<Captured> capture_transformer_block(const TransformerBlockConfig& config);

// The block as a module (its parameters drawn from config.seed), for callers that time the
// capture apart from building the model.
std::unique_ptr<nn::Module> make_transformer_block(const TransformerBlockConfig& config);
// Captures the loss of `block` (from make_transformer_block) on `x`; `block` must outlive the
// returned lifted values' use.
Expected<Captured> capture_transformer_block(nn::Module& block, const Tensor& x);

// The example input x, drawn from config.seed (standard normal, float32).
Tensor transformer_block_input(const TransformerBlockConfig& config);

// The captured graph in kiln's IR text (ir/printer.h), loadable by the kiln CLI.
Expected<std::string> transformer_block_text(const TransformerBlockConfig& config);

}  // namespace kiln::test_models
