#include "demo/gpt.h"

#include "frontend/functional.h"

namespace kiln::demo {

GptBlock::GptBlock(int64_t width, int64_t num_heads, uint64_t seed)
    : ln1({width}),
      attn(width, num_heads, seed),
      ln2({width}),
      fc(width, 4 * width, true, seed + 4),
      proj(4 * width, width, true, seed + 6) {
  register_module("ln1", ln1);
  register_module("attn", attn);
  register_module("ln2", ln2);
  register_module("fc", fc);
  register_module("proj", proj);
}

Tensor GptBlock::forward(const Tensor& x, CallSite loc) {
  Tensor h = x + attn(ln1(x, loc), loc);
  return h + proj(gelu(fc(ln2(h, loc), loc), "tanh", loc), loc);
}

Gpt::Gpt(const GptConfig& config)
    : config(config),
      token_embedding(config.vocab_size, config.width, -1, config.seed),
      position_embedding(config.context, config.width, -1, config.seed + 1),
      final_norm({config.width}),
      head(config.width, config.vocab_size, true, config.seed + 2) {
  register_module("token_embedding", token_embedding);
  register_module("position_embedding", position_embedding);
  for (int64_t i = 0; i < config.num_layers; ++i)
    blocks.push_back(std::make_shared<GptBlock>(config.width, config.num_heads, config.seed + 10 * (i + 1)));
  register_module("blocks", blocks);
  register_module("final_norm", final_norm);
  register_module("head", head);
}

Tensor Gpt::forward(const Tensor& tokens) {
  const int64_t t = tokens.size(1);
  // Rows 0..T-1 of the position table, sliced from the parameter so its gradient flows.
  Tensor x = token_embedding(tokens) + slice(position_embedding.weight, 0, 0, t);
  for (size_t i = 0; i < blocks.size(); ++i) x = (*blocks.at<GptBlock>(i))(x);
  return head(final_norm(x));
}

// The mean cross-entropy, written as log_softmax + gather: the derivative rule of
// cross_entropy called without class weights gives three gradients for its two operands
// (reported to the autograd owners); this form computes the same loss.
Tensor Gpt::loss(const Tensor& tokens, const Tensor& targets) {
  Tensor log_probs = log_softmax(reshape(forward(tokens), {-1, config.vocab_size}), -1);
  return neg(mean(gather(log_probs, 1, reshape(targets, {-1, 1}))));
}

}  // namespace kiln::demo
