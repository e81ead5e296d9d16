// Reductions generated with explicit lanes: every reduction kernel but those with one sum,
// prod, max or min (cpp_reduce.h, OpenMP's reduction clauses). That is, kernels whose
// accumulator carries several values (argmax/argmin: the value and its index), and kernels
// with several reduce ops (they fold over the same points in one pass).
//
// The innermost reduce loop runs in blocks of kLanes points. Each lane folds its own points
// into arrays indexed by the lane, so no value crosses lanes and the lane loop is `omp simd`
// (compares and selects in vector registers); the points after the last whole block fold into
// a tail accumulator; after the reduce loops the lanes and the tail combine into the reduce
// ops' values. The folds are order-independent (argmax keeps the smallest index among equal
// values, and NaN wins with its smallest index), so results are the evaluator's up to
// floating rounding. A floating product keeps its order instead: it folds serially into one
// accumulator, and a kernel with one has no `omp simd` on its lane loop.
#pragma once

#include <string>
#include <vector>

#include "lower/loop_ir.h"

namespace kiln::cpp {

inline constexpr int64_t kLanes = 16;

// Whether reduction kernel `k` is generated with lanes (more than one reduce op, or one that
// is not sum, prod, max or min).
bool uses_lanes(const LoopKernel& k);

// One accumulator: the fold of one reduce op. Its C++ variables are named after `name`.
struct LaneAccumulator {
  int op = -1;               // body index of the reduce op
  ReduceKind kind = ReduceKind::Sum;
  std::string value, index;  // the operands' C++ names (index: argmax/argmin)
  DType source = DType::F32;  // the value operand's dtype
  std::string name;          // "a0"
  std::string type;          // the C++ type values fold in
  bool lanes = true;         // false: a floating product, folded in order

  std::string declare() const;      // statements before the reduce loops
  std::string lane_update() const;  // inside the lane loop, lane `l`
  std::string tail_update() const;  // inside the loop over the points after the last block
  // Statements after the reduce loops that combine lanes and tail and define the reduce op's
  // value `v<op>` of dtype `out`.
  std::string combine(DType out) const;
};

// The accumulators of lane reduction `k`, one per reduce op, named a0, a1, ...
std::vector<LaneAccumulator> lane_accumulators(const LoopKernel& k);

// The index one past the last reduce op of reduction `k` (its reduce ops run from reduce_op).
size_t reduce_ops_end(const LoopKernel& k);

}  // namespace kiln::cpp
