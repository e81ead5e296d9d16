// Mixture-of-experts nodes that are not one row of the op table (aten_op_table.h): the
// transformers library's own `transformers.grouped_mm_fallback` custom op (its eager
// fallback of grouped_mm, which routed MoE layers call with the tokens sorted by expert),
// written as kiln ops (the dispatch's floor_divide and empty_like are convert_misc.h's).
// pt2_to_graph.cc calls it through one hook, beside the vision converters.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "import/pt2_program.h"
#include "ir/graph.h"

namespace kiln::pt2 {

// Whether `target` (with or without "torch.ops.") has a converter here.
bool has_moe_converter(std::string_view target);

// Appends the kiln nodes of node `n` to `g` and binds its result in `values`.
// grouped_mm_fallback(input [S, K], weight [E, K, N], offs [E]) -> [S, N]: row t is
// input[t] @ weight[e] for the e with offs[e-1] <= t < offs[e] (offs[-1] = 0), and 0 for the
// rows at or past offs[E-1], as transformers' loop over the groups leaves them. As kiln ops:
// e = sum(t >= offs) per row, weight indexed by min(e, E-1), a batched product of each row with
// its expert's matrix, rows past the last group masked to 0 (S x K x N gathered weights).
Status convert_moe_node(Graph& g, const Node& n, std::map<std::string, Value*>& values, const SourceLoc& loc);

}  // namespace kiln::pt2
