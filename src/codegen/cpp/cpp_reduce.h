// The accumulator of a reduction kernel in C++, matching the evaluator's reduce: the sum,
// product, max or min of the reduced value in its compute type (float for f32/f16/bf16,
// double for f64, wrapping 64-bit integers otherwise), started at the identity (0, 1,
// -inf / INT64_MIN, +inf / INT64_MAX). Floating max/min propagate NaN: a NaN anywhere makes
// the result NaN (a flag beside the comparison, which keeps the loop vectorizable).
#pragma once

#include <string>

#include "lower/loop_ir.h"

namespace kiln::cpp {

struct Accumulator {
  std::string type;    // "float", "double", "int64_t" or "uint64_t" (sum/prod wrap)
  std::string init;    // the identity
  bool nan_flag = false;  // floating max/min: `int acc_nan` records a NaN
  // OpenMP reduction clauses, or "" when the order must be kept (a floating product).
  std::string clause;

  // Statements that fold value `v` into `acc` (one per line, no indentation).
  std::string update(const std::string& v) const;
  // The reduce op's value (of dtype `out`) from `acc`.
  std::string result(DType out) const;

  DType source = DType::F32;  // the reduced value's dtype
  ReduceKind kind = ReduceKind::Sum;
};

Accumulator accumulator_for(const LoopKernel& k);

}  // namespace kiln::cpp
