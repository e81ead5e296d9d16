// Slicing a tensor along a dim and stacking slices back, for the ops that iterate over a dim
// (scan, map). Plain strided views and copies; no ops are involved.
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"

namespace kiln {

// The view t[..., i, ...] with `dim` removed. Requires 0 <= i < t.size(dim).
Tensor select_along(const Tensor& t, int dim, int64_t i);

// A new tensor with the slices stacked along a new dim `dim`. The slices must agree in dtype
// and sizes (an internal invariant; `what` names them if it breaks).
Tensor stack_along(const std::vector<Tensor>& slices, int dim, const std::string& what);

}  // namespace kiln
