// Number of elements arange(start, end, step) produces: ceil((end - start) / step), with
// torch's errors for a zero step or a step of the wrong sign. Shared by rule and kernel.
#pragma once

#include <cstdint>

#include "ops/op_call.h"
#include "support/diagnostic.h"

namespace kiln {

Expected<int64_t> arange_count(const OpCallBase& call);

}  // namespace kiln
