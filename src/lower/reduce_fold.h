// The loop-IR evaluator's semantics of one reduce op (loop_ir.h, ReduceKind): an accumulator
// that starts at the identity, folds the op's operands at each point of the reduce loops, in
// order, and gives the result. Floating values fold in double (sums compensated:
// ops/compensated_sum.h), others in wrapping int64, as the reference kernels compute.
#pragma once

#include <cstdint>

#include "lower/loop_ir.h"
#include "ops/compensated_sum.h"

namespace kiln {

class ReduceFold {
 public:
  // `floating`: whether the folded value (operand 0) has a floating dtype.
  ReduceFold(ReduceKind kind, bool floating);

  // Folds one point: its value (f when floating, else i) and, for argmax/argmin, its index.
  void add(double f, int64_t i, int64_t index = 0);

  // The result: floating (f) for sum, prod, max and min of floating values and for Welford's
  // mean and m2, else an integer.
  bool result_floating() const;
  double result_f() const;
  int64_t result_i() const;

 private:
  ReduceKind kind_;
  bool floating_;
  double f_ = 0;
  CompensatedSum sum_;  // a floating sum, or Welford's m2
  int64_t i_ = 0;
  int64_t index_ = -1;  // argmax/argmin: the best point's index, -1 before the first
  double mean_ = 0;     // welford: the running mean (m2 in sum_) ...
  int64_t count_ = 0;   // ... of this many points
};

}  // namespace kiln
