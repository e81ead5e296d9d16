#include "frontend/nn/embedding.h"

#include "frontend/functional.h"
#include "frontend/nn/arguments.h"

namespace kiln::nn {

Embedding::Embedding(int64_t num_embeddings, int64_t embedding_dim, int64_t padding_idx, uint64_t seed)
    : padding_idx(padding_idx) {
  check_size_arg("Embedding", "num_embeddings", num_embeddings);
  check_size_arg("Embedding", "embedding_dim", embedding_dim);
  if (padding_idx < -1 || padding_idx >= num_embeddings)
    throw Error(make_error("Embedding: padding_idx must be -1 (none) or a row in [0, ", num_embeddings, "), got ",
                           padding_idx));
  Tensor table = Tensor::randn({num_embeddings, embedding_dim}, seed);
  if (padding_idx >= 0)
    table.as_strided({embedding_dim}, {1}, padding_idx * embedding_dim).copy_from(Tensor::zeros({embedding_dim}));
  weight = register_parameter("weight", table);
}

Tensor Embedding::forward(const Tensor& indices, CallSite loc) { return embedding(weight, indices, padding_idx, loc); }

}  // namespace kiln::nn
