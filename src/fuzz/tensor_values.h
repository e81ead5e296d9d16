// Small tensor helpers the fuzzer's checks share: a tensor's elements as doubles (row-major)
// and copies of a list of tensors (each backend runs on its own, since graphs write inputs).
#pragma once

#include <span>
#include <vector>

#include "core/tensor.h"

namespace kiln::fuzz {

inline std::vector<double> element_values(const Tensor& t) {
  const Tensor c = t.contiguous();
  std::vector<double> v(static_cast<size_t>(c.numel()));
  for (int64_t i = 0; i < c.numel(); ++i) v[static_cast<size_t>(i)] = c.item_double(i);
  return v;
}

inline std::vector<Tensor> clones(std::span<const Tensor> ts) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) out.push_back(t.clone());
  return out;
}

}  // namespace kiln::fuzz
