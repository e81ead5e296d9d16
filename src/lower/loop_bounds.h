// Static bounds of a loop program's accesses: every load and store index, at every point its
// loops reach, lies inside its buffer, and so does every view an extern kernel takes. The
// evaluator finds a bad index when it reaches it; compiled code cannot, so the compiled
// runtime proves this before it runs anything. Also proves that no index arithmetic
// overflows int64, in the order generated code evaluates it (terms, then the constant).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "lower/loop_ir.h"
#include "support/diagnostic.h"

namespace kiln {

struct IndexRange {
  int64_t lo = 0, hi = 0;  // inclusive
};

// The range of `e` when variable v runs over [0, extents[v]) (all extents > 0), by interval
// arithmetic (exact for affine expressions, an over-approximation with div/mod); nullopt
// when a partial sum or product could overflow int64.
std::optional<IndexRange> index_range(const IndexExpr& e, std::span<const int64_t> extents);

// Ok when every access is provably in range. Tries interval arithmetic first and, where
// div/mod terms make that inconclusive, enumerates the points (up to 2^24 per access).
// Errors name the access, the kernel and the program, like the evaluator's.
Status check_loop_bounds(const LoopProgram& p);

}  // namespace kiln
