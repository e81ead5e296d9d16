// The accumulator of a reduction kernel in C++, matching the evaluator's reduce: the sum,
// product, max or min of the reduced value, started at the identity (0, 1, -inf / INT64_MIN,
// +inf / INT64_MAX). Floating max/min propagate NaN: a NaN anywhere makes the result NaN (a
// flag beside the comparison, which keeps the loop vectorizable).
//
// Floating sums are blocked, the one strategy of every generated sum (with lanes and in
// Welford's chunks too): past kReduceBlock points, the innermost reduce loop runs in blocks of
// kReduceBlock points, each kLanes lanes of kReduceBlock / kLanes points (lane l takes points
// l, l + 16, ...). A lane sums its points of a block in their compute type (float for
// f32/f16/bf16) and the partial joins the lane's running total in double; the lanes' totals
// add up pairwise in double after the reduce loops. A value thus meets at most kReduceBlock /
// kLanes - 1 = 15 float roundings whatever the length (15 more in a reduction of one block,
// whose vector lanes GCC adds in float), and the double totals about 2^-53 per block: the
// error stays below 30 * 2^-24 = 1.8e-6 of the sum of the magnitudes. A float accumulator per
// vector lane over the whole loop instead drifted by percents at 10^8 points and stopped
// growing past 2^24 additions per lane. The lanes are the outer loop of a block, `omp simd`,
// and its points the inner one: GCC vectorizes across lanes with contiguous loads and keeps
// the partials and totals in registers, with no horizontal sum per block (an OpenMP reduction
// clause per block spent a sequential 16-lane sum on each: 16% of a long sum's time). A
// reduction of at most kReduceBlock points is one block, its own float accumulator. Other
// folds are exact in any order and at any length (max, min, wrapping integers) and keep one
// accumulator; floating products fold in order, in double.
#pragma once

#include <cstdint>
#include <string>

#include "lower/loop_ir.h"

namespace kiln::cpp {

inline constexpr int64_t kReduceBlock = 256;
inline constexpr int64_t kLanes = 16;

// The number of points of reduction `k`'s reduce loops (INT64_MAX past it).
int64_t reduce_points(const LoopKernel& k);

// Whether a fold of `kind` over values of dtype `source`, over `points` points, is summed in
// blocks: a floating sum over more than kReduceBlock points.
bool sums_in_blocks(ReduceKind kind, DType source, int64_t points);

struct Accumulator {
  std::string type;       // "float", "double", "int64_t" or "uint64_t" (sum/prod wrap)
  std::string init;       // the identity
  bool nan_flag = false;  // floating max/min: `int acc_nan` records a NaN
  // OpenMP reduction clauses, or "" when the order must be kept (a floating product).
  std::string clause;
  // A floating sum's running total, "double" ("" for other folds): what blocks' partials join
  // (and what a column reduction's columns accumulate in directly).
  std::string total;
  // Whether the sum runs in blocks (sums_in_blocks): the totals are then lanes `acc_l[l]`
  // (`clause` reduces them over threads), each block's lane folds into `part` (of `type`)
  // before joining its lane, and the points after the last group join lane 0.
  bool blocks = false;

  // The declaration of `acc` (of the lanes' totals when in blocks) and of its NaN flag.
  std::string declare() const;
  // In blocks, inside the loop over lanes `l`: a block's `part`, before its points, and its
  // join into the lane's total, after; then, after the reduce loops, `acc` from the lanes.
  std::string part_declare() const;
  std::string part_join() const;
  std::string lanes_total() const;
  // Statements that fold value `v` into accumulator `into` (one per line, no indentation):
  // `acc` unless in blocks (`part`, and `acc_l[0]` after the last group).
  std::string update(const std::string& v, const std::string& into = "acc") const;
  // The reduce op's value (of dtype `out`) from `acc`.
  std::string result(DType out) const;

  DType source = DType::F32;  // the reduced value's dtype
  ReduceKind kind = ReduceKind::Sum;
};

Accumulator accumulator_for(const LoopKernel& k);

}  // namespace kiln::cpp
