// The functional op an in-place op computes before it writes its result into operand 0, for
// the passes and lowerings that replace one by the other (functionalization, the CPU
// backend's in-place kernels).
#pragma once

#include <optional>

#include "ops/op_kind.h"

namespace kiln {

// add_ -> add, sub_ -> sub, mul_ -> mul, div_ -> div, relu_ -> relu, clamp_ -> clamp,
// masked_fill_ -> masked_fill, index_put_ -> index_put; nullopt for every other op (fill_ and
// zero_ have no functional twin of one op, copy_ is a write of its own).
std::optional<OpKind> functional_form(OpKind op);

}  // namespace kiln
