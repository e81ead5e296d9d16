#include "frontend/nn/causal_self_attention.h"

#include <cmath>
#include <limits>

#include "frontend/functional.h"
#include "frontend/nn/arguments.h"

namespace kiln::nn {

namespace {

int64_t checked_heads(int64_t embed_dim, int64_t num_heads) {
  check_size_arg("CausalSelfAttention", "embed_dim", embed_dim);
  if (num_heads <= 0 || embed_dim % num_heads != 0)
    throw Error(make_error("CausalSelfAttention: num_heads ", num_heads, " does not divide embed_dim ", embed_dim));
  return num_heads;
}

}  // namespace

CausalSelfAttention::CausalSelfAttention(int64_t embed_dim, int64_t num_heads, uint64_t seed)
    : embed_dim(embed_dim),
      num_heads(checked_heads(embed_dim, num_heads)),
      qkv(embed_dim, 3 * embed_dim, true, seed),
      proj(embed_dim, embed_dim, true, seed + 2) {
  register_module("qkv", qkv);
  register_module("proj", proj);
}

Tensor CausalSelfAttention::forward(const Tensor& x, CallSite loc) {
  if (x.dim() != 3) throw Error(make_error("CausalSelfAttention: expects [B, T, C], got rank ", x.dim()));
  const int64_t t = x.size(1);
  const int64_t head_dim = embed_dim / num_heads;
  // [B, T, 3C] -> three [B, H, T, D]
  std::vector<Tensor> q_k_v = chunk(qkv(x, loc), 3, -1, loc);
  for (Tensor& part : q_k_v) part = transpose(reshape(part, {-1, t, num_heads, head_dim}, loc), 1, 2, loc);
  const Tensor& q = q_k_v[0];
  const Tensor& k = q_k_v[1];
  const Tensor& v = q_k_v[2];

  Tensor scores = mul(matmul(q, transpose(k, -2, -1, loc), loc), 1.0 / std::sqrt(static_cast<double>(head_dim)), loc);
  const Tensor future = triu(ones({t, t}, DType::Bool, loc), 1, loc);
  scores = masked_fill(scores, future, -std::numeric_limits<double>::infinity(), loc);
  Tensor y = matmul(softmax(scores, -1, std::nullopt, loc), v, loc);  // [B, H, T, D]
  y = reshape(transpose(y, 1, 2, loc), {-1, t, embed_dim}, loc);
  return proj(y, loc);
}

}  // namespace kiln::nn
