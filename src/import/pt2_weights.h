// The weights of a .pt2 archive as kiln tensors: each storage entry (data/weights/weight_N,
// data/constants/...) is read once, straight into a Storage, and every tensor the config
// names is a view of it with the config's sizes, strides and storage offset. Tensors that
// share an entry share its Storage (tied weights, views of one buffer).
#pragma once

#include <map>
#include <string>

#include "core/tensor.h"
#include "import/pt2_archive.h"
#include "import/pt2_program.h"

namespace kiln::pt2 {

struct LoadedWeight {
  Tensor tensor;
  std::string entry;  // the archive entry its storage came from ("data/weights/weight_0")
};

// The tensors of `config`, by state-dict name; `folder` is the entries' folder
// ("data/weights/"). Errors name the weight and the entry: a missing entry, a pickled weight,
// a dtype kiln lacks, a dynamic size, a view that needs more bytes than the entry holds.
Expected<std::map<std::string, LoadedWeight>> load_weights(const Pt2Archive& archive, const WeightsConfig& config,
                                                           const std::string& folder);

// The static sizes of `meta` ("what" names the tensor in the error for a dynamic dim).
Expected<std::vector<int64_t>> static_sizes(const std::vector<SymSize>& sizes, const std::string& what);

}  // namespace kiln::pt2
