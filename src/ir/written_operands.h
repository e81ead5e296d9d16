// Which operands a node writes in place: operand 0 of an in-place op (trait Inplace), the
// `written` arguments of kernel_call (every tensor argument when the attribute is absent,
// ops.def). Passes that must not move a read across a write ask this, never the traits alone.
#pragma once

#include <vector>

#include "ir/graph.h"

namespace kiln {

// Operand positions `n` writes, in order; empty for nodes that write nothing.
std::vector<int> written_operands(const Node& n);

// Whether `n` writes any operand.
bool writes_operands(const Node& n);

}  // namespace kiln
