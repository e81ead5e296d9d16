// nn::Embedding: rows of a [num_embeddings, embedding_dim] table picked by integer indices.
// The table starts standard normal from `seed` (torch's default), with the padding row zero.
#pragma once

#include "frontend/nn/module.h"

namespace kiln::nn {

class Embedding : public UnaryModule {
 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim, int64_t padding_idx = -1, uint64_t seed = kDefaultSeed);
  Tensor forward(const Tensor& indices, CallSite loc = CallSite::current()) override;

  Tensor weight;
  int64_t padding_idx;
};

}  // namespace kiln::nn
