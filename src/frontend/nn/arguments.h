// The arguments modules are built with, checked as torch checks them, so that a bad size is a
// kiln::Error naming the module and the argument ("Linear: in_features must not be negative,
// got -3") rather than an error about a tensor the user never made.
#pragma once

#include <cstdint>
#include <vector>

namespace kiln::nn {

void check_size_arg(const char* module, const char* name, int64_t value);                       // value >= 0
void check_positive_arg(const char* module, const char* name, int64_t value);                   // value > 0
void check_shape_arg(const char* module, const char* name, const std::vector<int64_t>& shape);  // each >= 0

}  // namespace kiln::nn
