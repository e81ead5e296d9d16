// The accumulator of a reduction kernel in C++, matching the evaluator's reduce: the sum,
// product, max or min of the reduced value, started at the identity (0, 1, -inf / INT64_MIN,
// +inf / INT64_MAX). Floating max/min propagate NaN: a NaN anywhere makes the result NaN (a
// flag beside the comparison, which keeps the loop vectorizable).
//
// Floating sums are blocked, the one strategy of every generated sum (lanes and Welford's
// chunks too): the innermost reduce loop runs in blocks of kReduceBlock points; a block sums its
// values in their compute type (float for f32/f16/bf16), in the vector lanes of an OpenMP
// reduction, and its partial sum joins a running total in double. A value thus meets at most
// kReduceBlock / w - 1 roundings in its lane and w - 1 as the w lanes combine, whatever the
// length (w = 16 floats on AVX-512); the double total adds about 2^-53 per block. A float
// accumulator over the whole loop instead drifted by percents at 10^8 points and stopped
// growing past 2^24 additions per lane. A reduction of at most kReduceBlock points is one
// block: its partial is the result. Other folds are exact in any order and at any length
// (max, min, wrapping integers) and keep one accumulator; floating products fold in order, in
// double.
#pragma once

#include <cstdint>
#include <string>

#include "lower/loop_ir.h"

namespace kiln::cpp {

inline constexpr int64_t kReduceBlock = 256;

// The number of points of reduction `k`'s reduce loops (INT64_MAX past it).
int64_t reduce_points(const LoopKernel& k);

// Whether a fold of `kind` over values of dtype `source`, over `points` points, is summed in
// blocks: a floating sum over more than kReduceBlock points.
bool sums_in_blocks(ReduceKind kind, DType source, int64_t points);

struct Accumulator {
  std::string type;    // "float", "double", "int64_t" or "uint64_t" (sum/prod wrap)
  std::string init;    // the identity
  bool nan_flag = false;  // floating max/min: `int acc_nan` records a NaN
  // OpenMP reduction clauses, or "" when the order must be kept (a floating product).
  std::string clause;
  // A floating sum's running total, "double" ("" for other folds): what blocks join (and
  // what a column reduction's columns accumulate in directly).
  std::string total;
  // Whether the sum runs in blocks (sums_in_blocks): `acc` is then the double total, and each
  // block folds into `part` (of `type`, with `part_clause`) before joining it.
  bool blocks = false;
  std::string part_clause;

  // The declaration of `acc` (the total when in blocks) and of its NaN flag.
  std::string declare() const;
  // In blocks: a block's `part`, before its loop, and its join into `acc`, after.
  std::string part_declare() const;
  std::string part_join() const;
  // Statements that fold value `v` into accumulator `into` (one per line, no indentation).
  std::string update(const std::string& v, const std::string& into = "acc") const;
  // The reduce op's value (of dtype `out`) from `acc`.
  std::string result(DType out) const;

  DType source = DType::F32;  // the reduced value's dtype
  ReduceKind kind = ReduceKind::Sum;
};

Accumulator accumulator_for(const LoopKernel& k);

}  // namespace kiln::cpp
