// Views as index arithmetic: for a view node (transpose, permute, t, reshape/view/flatten,
// unsqueeze, squeeze, expand, slice, select, narrow), the coordinates of its input as index
// expressions over the coordinates of its result (variables i0..i<rank-1>). Composing a
// consumer's load through these is how views are lowered without copies. as_strided is the
// exception: its map addresses the storage of an affine `in_map` directly (its buffer).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/graph.h"
#include "lower/index_expr.h"

namespace kiln {

// nullopt when the node is not a view lowered as index arithmetic (it becomes an extern).
// `in_map` is the input's map (buffer index over the input's coordinates); reshapes of a
// contiguous map stay affine, others use div/mod.
std::optional<IndexExpr> view_map(const Node& n, const std::vector<int64_t>& in_sizes, const IndexExpr& in_map,
                                  const std::vector<int64_t>& out_sizes);

}  // namespace kiln
