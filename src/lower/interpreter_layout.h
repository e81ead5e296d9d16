// The layout (strides and offset into its storage) the reference interpreter gives a value of a
// graph, found without running it: graph inputs and the results of ops that allocate are
// contiguous, views take their operand's layout through view_layouts (ops/view_layout.h), and
// in-place results are their operand. The CPU lowering uses it to refuse a `view` the
// interpreter refuses (a view of a transposed value that no strides express), since its own
// loads do not depend on strides. A result of a higher-order op counts as contiguous.
#pragma once

#include "ir/graph.h"
#include "ops/view_layout.h"
#include "support/diagnostic.h"

namespace kiln {

Layout interpreter_layout(const Value* v);

// The interpreter's error for view node `n` (its kernel's), or ok.
Status check_view_like_interpreter(const Node& n);

}  // namespace kiln
