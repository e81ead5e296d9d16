// A two-layer GPT-style language model for `kiln demo` and its tests: token and learned
// position embeddings, pre-LayerNorm blocks of causal self-attention and a tanh-GELU MLP with
// residuals, a final LayerNorm and an LM head. It lives with the demo, not in src/, because
// it is a model, not a building block; its one generic piece, nn::CausalSelfAttention, is in
// frontend/nn.
#pragma once

#include <cstdint>
#include <memory>

#include "frontend/nn/causal_self_attention.h"
#include "frontend/nn/embedding.h"
#include "frontend/nn/layer_norm.h"
#include "frontend/nn/linear.h"
#include "frontend/nn/module.h"
#include "frontend/nn/module_list.h"

namespace kiln::demo {

struct GptConfig {
  int64_t vocab_size = 16;
  int64_t context = 16;  // longest sequence (rows of the position embedding)
  int64_t width = 32;
  int64_t num_heads = 2;
  int64_t num_layers = 2;
  uint64_t seed = 0;  // parameter initialization
};

// x + attn(ln1(x)), then x + mlp(ln2(x)) with mlp = proj(gelu_tanh(fc(.))), fc widening 4x.
class GptBlock : public nn::UnaryModule {
 public:
  GptBlock(int64_t width, int64_t num_heads, uint64_t seed);
  Tensor forward(const Tensor& x, CallSite loc = CallSite::current()) override;

  nn::LayerNorm ln1;
  nn::CausalSelfAttention attn;
  nn::LayerNorm ln2;
  nn::Linear fc;
  nn::Linear proj;
};

class Gpt : public nn::Module {
 public:
  explicit Gpt(const GptConfig& config);
  // tokens [B, T] (i64, T <= context) -> logits [B, T, vocab_size].
  Tensor forward(const Tensor& tokens);
  // The mean cross-entropy of predicting targets [B, T] from tokens [B, T].
  Tensor loss(const Tensor& tokens, const Tensor& targets);

  GptConfig config;
  nn::Embedding token_embedding;
  nn::Embedding position_embedding;
  nn::ModuleList blocks;
  nn::LayerNorm final_norm;
  nn::Linear head;
};

}  // namespace kiln::demo
