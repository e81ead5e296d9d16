// Integer division in compiled code: the reference kernels (and the loop-IR evaluator) report
// an integer division or remainder by zero as an error; a generated kernel has no way to, so
// the compiled runtime runs integer `div` with a rounding_mode, `remainder` and `fmod` only
// with a divisor that is a nonzero constant (lowering keeps the others extern kernels).
#pragma once

#include "lower/loop_ir.h"
#include "support/diagnostic.h"

namespace kiln {

// Ok when every integer division of `p`'s loop bodies divides by a `const` that is nonzero in
// its dtype; else an error naming the op, the kernel and the program.
Status check_integer_divisors(const LoopProgram& p);

}  // namespace kiln
