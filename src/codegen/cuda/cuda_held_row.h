// A fused kernel whose row a block holds in registers: each thread loads its points of the row
// once (vector accesses where they allow it, cuda_vector_access.h), every part reads and
// writes those registers instead of memory, and the row's statistics (what a reduction part
// stores at the row's index) stay in a register of every thread. Memory sees a row buffer's
// stores only where something outside the kernel may read it.
//
// The row is held when the kernel's rows are independent (cpp_schedule.h), every part walks
// the same row loops (a reduction part reduces all of them) or is scalar (a pointwise part
// whose row loops have one point: a statistic's arithmetic, which every thread runs), no
// access is indirect or masked,
// and the thread's values fit (cuda_launch.h's held_row_launch). Thread t of the block holds
// groups t, t + block, ... of `width` consecutive points of the row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/cuda/cuda_launch.h"
#include "lower/loop_ir.h"

namespace kiln::cuda {

// One buffer element (or row of them) the kernel holds: the accesses at one index of a buffer;
// or a value the kernel computes at each point, held so that later parts read it.
struct HeldValue {
  int buffer = -1;  // -1: a computed value
  // A computed value: body op `op` of part `part` computes it; a later part's op that computes
  // the same (same ops from the same held and read-only inputs) reads it instead.
  int part = -1, op = -1;
  // An array of the thread's points (the index moves with the row), else one register for the
  // row (a statistic a reduction part stores).
  bool row = false;
  bool load_first = false;       // the kernel's first access loads it from memory
  bool store_to_memory = false;  // its stores also go to memory
};

struct HeldRow {
  std::string reason;  // empty: held; else why the row is not
  int width = 1;       // consecutive points a group (vector accesses when > 1)
  int64_t groups = 0;  // the row's points / width
  HeldRowLaunch launch;
  std::vector<HeldValue> values;
  // Per part, per body op: the HeldValue a load or store reads or writes (-1 for memory), a
  // computed value's op writes, or a recomputing op reads (-1: computed in place).
  std::vector<std::vector<int>> value_of;
  // Per part: a reduction part with a welford_m2 op, written in two passes over the registers:
  // the reduce ops' sums (each welford_m2's operand summed, for its mean), then each
  // welford_m2 as the sum of squared deviations from that mean. Exact two-pass statistics: no
  // division per point, no join of Welford states (Chan's), a fixed shuffle order.
  std::vector<bool> two_pass_m2;
  // Per part, per body op: a float division by a statistic of the row in a pointwise row part,
  // written as a product with the divisor's reciprocal, computed once a row
  // (cuda_held_quotient.cc).
  std::vector<std::vector<bool>> by_reciprocal;
};

// Whether fused kernel part `part` (after `n` shared loops) is scalar: pointwise over one point.
bool is_scalar_part(const LoopKernel& part, size_t n);

// The plan of fused kernel `k`, one of `p`'s flat kernels (lower/loop_control.h).
HeldRow plan_held_row(const LoopProgram& p, const LoopKernel& k, const CudaTarget& target);

// Whether computing op `op` costs more than reading a register: compute_ops.def's Costly ops,
// the transcendental functions and divisions (softmax's exponentials), not the plain arithmetic
// a point does anyway.
bool worth_holding(OpKind op);

// Held row `h` of fused kernel `k` (its launch chosen) with computed values added
// (cuda_held_reuse.cc): each floating value worth holding that a row part computes and a later
// row part computes again at the same point, while the thread's held values stay within
// kMostHeldValues at h's launch (the budget the launch was chosen for; cuda_no_spill checks).
void hold_recomputed(const LoopKernel& k, HeldRow& h);

// Held row `h` of fused kernel `k` with its by_reciprocal divisions marked: each f32 division
// (no rounding mode) of a pointwise row part whose divisor is a load of a statistic the kernel
// holds in a register (not stored by that part).
void divide_by_reciprocals(const LoopKernel& k, HeldRow& h);

}  // namespace kiln::cuda
