// sort_topologically: reorders nodes so every operand is defined before its user, keeping
// the original order wherever it is already valid (a stable Kahn sort). Ordering that is
// not visible in the data edges is kept too: in-place ops stay after the earlier readers of
// the value they write (and its views) and before the later ones, and ops with side effects
// or random draws keep their relative order. Runs inside subgraphs as well.
#pragma once

#include "ir/graph.h"
#include "passes/pass_manager.h"

namespace kiln {

PassResult sort_topologically(Graph& g);

}  // namespace kiln
