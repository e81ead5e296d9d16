// Which dims a reduction op reduces, from its `dim` attribute: none (and, except for any/all,
// an empty list) means all of them. Shared by the shape rule and the kernels.
#pragma once

#include <vector>

#include "ops/op_call.h"
#include "support/diagnostic.h"

namespace kiln {

// One flag per dim of a tensor of rank `rank`; errors on out-of-range or repeated dims.
Expected<std::vector<bool>> reduced_dims(const OpCallBase& call, int rank);

}  // namespace kiln
