// Static bounds of a loop program's accesses: every load and store index, at every point its
// loops reach, lies inside its buffer, and so does every view an extern kernel takes. The
// evaluator finds a bad index when it reaches it; compiled code cannot, so the compiled
// runtime proves this before it runs anything. Also proves that no index arithmetic
// overflows int64, in the order generated code evaluates it (terms, then the constant), and
// that control kernels keep their rules (loop_control.h), since a runtime relies on them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "lower/index_expr.h"
#include "lower/loop_ir.h"
#include "support/diagnostic.h"

namespace kiln {

// Ok when every access is provably in range. Tries interval arithmetic first and, where
// div/mod terms make that inconclusive, enumerates the points (up to 2^24 per access).
// Errors name the access, the kernel and the program, like the evaluator's.
Status check_loop_bounds(const LoopProgram& p);

}  // namespace kiln
