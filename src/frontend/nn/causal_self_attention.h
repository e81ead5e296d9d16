// nn::CausalSelfAttention: multi-head self-attention in which position t attends to positions
// <= t (GPT-2's attention). x [B, T, C] -> [B, T, C]: one input projection to queries, keys
// and values (`qkv`, C -> 3C), scores q k^T / sqrt(C / num_heads) with the future masked to
// -inf, softmax, the weighted sum of values, and an output projection (`proj`). Written with
// matmul, masked_fill and softmax, so it captures and differentiates op by op; T must be
// static. Weights start as nn::Linear's, drawn from `seed` and `seed + 2`.
#pragma once

#include "frontend/nn/linear.h"
#include "frontend/nn/module.h"

namespace kiln::nn {

class CausalSelfAttention : public UnaryModule {
 public:
  // Throws kiln::Error when num_heads does not divide embed_dim.
  CausalSelfAttention(int64_t embed_dim, int64_t num_heads, uint64_t seed = kDefaultSeed);
  Tensor forward(const Tensor& x, CallSite loc = CallSite::current()) override;

  int64_t embed_dim;
  int64_t num_heads;
  Linear qkv;
  Linear proj;
};

}  // namespace kiln::nn
