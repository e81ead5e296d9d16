// Seeded inputs for a drawn graph: floats from randn with about one element in eight replaced
// by a value where kernels go wrong (0, -0, +-1, a large number, a subnormal, +-inf, NaN),
// integers mostly small with an occasional extreme of their dtype, bools half true. One seed
// gives one set of inputs.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"

namespace kiln::fuzz {

struct InputOptions {
  bool special_values = true;  // false: plain randn and small integers (gradient checks)
};

std::vector<Tensor> fuzz_inputs(const Graph& g, uint64_t seed, const InputOptions& options = {});

}  // namespace kiln::fuzz
