// The scalar semantics of the loop IR's compute ops beyond plain arithmetic (loop_ir.h): the
// math functions (log1p, expm1, erf, tan, atan, atan2), sign, rounding (floor, ceil, round half
// to even, trunc), remainder, fmod, rounding division, integer pow, bitwise ops and shifts,
// lerp. The loop-IR evaluator (loop_eval.cc) computes them here, on values as it holds them:
// double on the floating path, int64 on the integer one (compute_domain).
#pragma once

#include <span>

#include "core/dtype.h"
#include "ops/attr.h"
#include "ops/op_kind.h"
#include "support/diagnostic.h"

namespace kiln {

// Whether eval_math_float and eval_math_int define `op` (the other compute ops are the
// evaluator's own).
bool is_eval_math_op(OpKind op);

// `op` on floating values `a`, with result dtype `out` (a rounding division rounds its
// quotient to `out` first, as the reference kernel divides in the result dtype).
double eval_math_float(OpKind op, std::span<const double> a, DType out, const AttrMap& attrs);

// `op` on integer values `a` (shifts take their width from `out`). An error when it divides
// by zero, which the reference kernels report.
Expected<int64_t> eval_math_int(OpKind op, std::span<const int64_t> a, DType out, const AttrMap& attrs);

}  // namespace kiln
