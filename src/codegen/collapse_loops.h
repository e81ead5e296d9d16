// Loop collapsing for code generation: fewer, longer loops for the same points. A copy of a
// pointwise or reduction kernel with loops of extent 1 removed (their variable is 0) and
// each pair of adjacent loops (i_k, i_k+1) merged into one of extent e_k * e_k+1 wherever
// every load and store walks them as one: coeff(i_k) == coeff(i_k+1) * e_k+1 and neither
// variable appears inside a div or mod. Outer loops merge only with outer loops and reduce
// loops with reduce loops; a reduction keeps at least one reduce loop. So a contiguous
// [4096,4096] pointwise kernel becomes one loop of 16777216 points. The body runs at the
// same points in the same order; only the loop variables are renumbered.
#pragma once

#include "lower/loop_ir.h"

namespace kiln {

LoopKernel collapse_loops(const LoopKernel& k);

}  // namespace kiln
