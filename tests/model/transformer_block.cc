// The transformer block of transformer_block.h as an nn::Module, and its capture.
#include "transformer_block.h"

#include "frontend/functional.h"
#include "frontend/nn/causal_self_attention.h"
#include "frontend/nn/layer_norm.h"
#include "frontend/nn/linear.h"
#include "frontend/nn/module.h"
#include "ir/printer.h"

namespace kiln::test_models {

namespace {

class Mlp : public nn::Module {
 public:
  Mlp(int64_t width, uint64_t seed) : fc1_(width, 4 * width, true, seed), fc2_(4 * width, width, true, seed + 2) {
    register_module("fc1", fc1_);
    register_module("fc2", fc2_);
  }

  Tensor forward(const Tensor& x) { return fc2_(gelu(fc1_(x), "tanh")); }

 private:
  nn::Linear fc1_, fc2_;
};

class TransformerBlock : public nn::Module {
 public:
  explicit TransformerBlock(const TransformerBlockConfig& c)
      : ln1_({c.width}), attn_(c.width, c.heads, c.seed + 1), ln2_({c.width}), mlp_(c.width, c.seed + 5) {
    register_module("ln1", ln1_);
    register_module("attn", attn_);
    register_module("ln2", ln2_);
    register_module("mlp", mlp_);
  }

  Tensor forward(const Tensor& x) {
    const Tensor h = add(x, attn_(ln1_(x)));
    return add(h, mlp_.forward(ln2_(h)));
  }

 private:
  nn::LayerNorm ln1_;
  nn::CausalSelfAttention attn_;
  nn::LayerNorm ln2_;
  Mlp mlp_;
};

}  // namespace

Tensor transformer_block_input(const TransformerBlockConfig& config) {
  return Tensor::randn({config.batch, config.seq, config.width}, config.seed);
}

std::unique_ptr<nn::Module> make_transformer_block(const TransformerBlockConfig& config) {
  return std::make_unique<TransformerBlock>(config);
}

Expected<Captured> capture_transformer_block(nn::Module& block, const Tensor& x) {
  auto* b = dynamic_cast<TransformerBlock*>(&block);
  if (b == nullptr) return make_error("capture_transformer_block: the module is not a transformer block");
  const CaptureFn1 loss = [b](std::span<const Tensor> inputs) { return sum(b->forward(inputs[0])); };
  return capture(loss, {x}, {.name = "transformer_block", .input_names = {"x"}, .module = b});
}

Expected<Captured> capture_transformer_block(const TransformerBlockConfig& config) {
  if (config.heads <= 0 || config.width % config.heads != 0)
    return make_error("transformer block: heads (", config.heads, ") must divide width (", config.width, ")");
  TransformerBlock block(config);
  return capture_transformer_block(block, transformer_block_input(config));
}

Expected<std::string> transformer_block_text(const TransformerBlockConfig& config) {
  Expected<Captured> captured = capture_transformer_block(config);
  if (!captured) return captured.error();
  return print_graph(*captured->graph);
}

}  // namespace kiln::test_models
