// Reductions generated with explicit lanes: every reduction kernel but those with one sum,
// prod, max or min (cpp_reduce.h, OpenMP's reduction clauses). That is, kernels whose
// accumulator carries several values (argmax/argmin: the value and its index; Welford: the
// mean, m2 and count), and kernels with several reduce ops (they fold over the same points in
// one pass; welford_mean and welford_m2 of one value share one accumulator).
//
// The innermost reduce loop runs in groups of kLanes points. Each lane folds its own points
// into arrays indexed by the lane, so no value crosses lanes and the lane loop is `omp simd`
// (compares and selects in vector registers); the points after the last whole group fold into
// a tail accumulator; after the reduce loops the lanes and the tail combine into the reduce
// ops' values. The folds are order-independent (argmax keeps the smallest index among equal
// values, and NaN wins with its smallest index; Welford's lanes combine by Chan's formula),
// so results are the evaluator's up to floating rounding. Every lane of a Welford accumulator
// has folded the same number of points (one per group), so the group's 1/count is one scalar
// and the lane loop has no division; Welford folds in double, whatever the value's type. A
// floating product keeps its order instead: it folds serially into one accumulator, in double,
// and a kernel with one has no `omp simd` on its lane loop. Floating sums are blocked
// (cpp_reduce.h): past kReduceBlock points, the groups run in blocks of kReduceBlock points,
// after each of which the lanes join lanes of double totals; the tail folds into a double.
#pragma once

#include <string>
#include <vector>

#include "codegen/cpp/cpp_reduce.h"
#include "lower/loop_ir.h"

namespace kiln::cpp {

// Whether reduction kernel `k` is generated with lanes (more than one reduce op, or one that
// is not sum, prod, max or min).
bool uses_lanes(const LoopKernel& k);

// One accumulator: the fold of one reduce op, or of welford_mean and welford_m2 of one value.
// Its C++ variables are named after `name`.
struct LaneAccumulator {
  std::vector<int> ops;               // body indices of the reduce ops whose values it gives
  ReduceKind kind = ReduceKind::Sum;  // Welford: WelfordMean for both
  std::string value, index;           // the operands' C++ names (index: argmax/argmin)
  DType source = DType::F32;          // the value operand's dtype
  std::string name;                   // "a0"
  std::string type;                   // the C++ type values fold in
  bool lanes = true;                  // false: a floating product, folded in order
  // A floating sum over more than kReduceBlock points (sums_in_blocks): the lanes join double
  // lanes `<name>_w` after each block (block_end), and the tail is a double.
  bool blocks = false;

  std::string declare() const;      // statements before the reduce loops
  std::string group_start() const;  // before each group's lane loop ("" but for Welford)
  std::string lane_update() const;  // inside the lane loop, lane `l`
  std::string block_end() const;    // after each block ("" unless `blocks`)
  std::string tail_update() const;  // inside the loop over the points after the last group
  // Statements after the reduce loops that combine lanes and tail and define the values
  // `v<op>` of the reduce ops of `k` it gives.
  std::string combine(const LoopKernel& k) const;
};

// Welford in chunks: when every reduce op of a kernel is welford_mean or welford_m2 (what
// lowering makes), the innermost reduce loop runs in chunks, the blocks of cpp_reduce.h
// (kReduceBlock points), instead of lanes. A first pass over the chunk computes its values
// less a shift (the row's first value) into a chunk array and sums them (OpenMP's reduction
// clause, in the value's compute type), a second pass sums the squared deviations from the
// chunk's mean, and the chunk's (count, sum, m2) joins the running ones in double: the sums
// add (the mean is the shift plus the sum over the count, so an infinity or NaN propagates as
// in a sum; a non-finite shift is 0) and m2 by Chan's formula. Memory is read once (the chunk array stays in L1) and
// the passes vectorize like plain sums. The shift keeps the float sums accurate where the data's mean is large against
// its spread (the shifted data algorithm): without it, a chunk's mean is off by an ulp of the
// mean, whose square counts in m2 (values of 500 +- 0.001 lost 2e-3 of their variance).
bool uses_welford_chunks(const LoopKernel& k);

// When a kernel has few rows, its chunks may run in parallel instead (the innermost reduce
// loop being the only one): each thread folds its chunks into a running state of its own,
// which joins a total under `omp critical`; the last, partial chunk joins after.
struct WelfordChunks {
  std::string declare;  // before the reduce loops: the running count, mean and m2 in double
  std::string shift;    // after computing the reduce loops' first point: the shift
  std::string begin;    // before a chunk's first pass: the chunk array and sum
  std::string fold;     // in the first pass (`j` the point in the chunk): store and sum value - shift
  std::string clause;   // the first pass's reduction clause
  // After the first pass over `points` points: the second pass and the join.
  std::string join(int64_t points) const;
  std::string result;  // after the reduce loops: the reduce ops' values
  // Chunks in parallel: the total's declaration (before the parallel region), a thread's join
  // into it (its critical section), and the running state from the total (after the region).
  std::string total_declare() const;
  std::string total_join() const;
  std::string from_total() const;

  LaneAccumulator acc;
};

// The chunked Welford accumulators of `k` (uses_welford_chunks), one per folded value.
std::vector<WelfordChunks> welford_chunks(const LoopKernel& k);

// The accumulators of lane reduction `k`, one per reduce op (one per value for Welford's),
// named a0, a1, ...
std::vector<LaneAccumulator> lane_accumulators(const LoopKernel& k);

}  // namespace kiln::cpp
