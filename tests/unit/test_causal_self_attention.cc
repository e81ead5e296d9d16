// nn::CausalSelfAttention: the same numbers as scaled_dot_product_attention with is_causal on
// its own projections, no position reads a later one, and bad configurations are errors.
#include <gtest/gtest.h>

#include <cmath>

#include "frontend/functional.h"
#include "frontend/nn/causal_self_attention.h"

namespace kiln::nn {
namespace {

TEST(CausalSelfAttention, MatchesCausalScaledDotProductAttention) {
  CausalSelfAttention attn(8, 2, 3);
  const Tensor x = Tensor::randn({2, 5, 8}, 1);
  const Tensor got = attn(x);
  std::vector<Tensor> qkv = chunk(attn.qkv(x), 3, -1);
  for (Tensor& t : qkv) t = transpose(reshape(t, {2, 5, 2, 4}), 1, 2);
  Tensor y = scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], {}, 0.0, true);
  const Tensor want = attn.proj(reshape(transpose(y, 1, 2), {2, 5, 8}));
  ASSERT_EQ(got.sizes(), want.sizes());
  for (int64_t i = 0; i < got.numel(); ++i) EXPECT_NEAR(got.item_double(i), want.item_double(i), 1e-5) << i;
}

TEST(CausalSelfAttention, EarlierPositionsIgnoreLaterOnes) {
  CausalSelfAttention attn(6, 3);
  Tensor x = Tensor::randn({1, 4, 6}, 1);
  const Tensor before = attn(x);
  Tensor changed = x.clone();
  changed.as_strided({6}, {1}, 3 * 6).copy_from(Tensor::randn({6}, 9));  // position 3 only
  const Tensor after = attn(changed);
  for (int64_t i = 0; i < 3 * 6; ++i) EXPECT_EQ(before.item_double(i), after.item_double(i)) << i;
  bool last_changed = false;
  for (int64_t i = 3 * 6; i < 4 * 6; ++i) last_changed |= before.item_double(i) != after.item_double(i);
  EXPECT_TRUE(last_changed);
}

TEST(CausalSelfAttention, Errors) {
  EXPECT_THROW(CausalSelfAttention(6, 4), Error);
  CausalSelfAttention attn(4, 2);
  EXPECT_THROW(attn(Tensor::randn({3, 4}, 1)), Error);
}

}  // namespace
}  // namespace kiln::nn
