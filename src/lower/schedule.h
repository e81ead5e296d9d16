// The scheduler: merges the kernels lowering made (one per realized value) into fewer kernels
// (docs/LOWERING.md, "Scheduling"). It walks the kernels in order and joins each one to the
// kernel before it when that is legal and pays:
//  - pointwise into pointwise over the same loops (vertical: loads of what the first stores,
//    at the same index, become the stored value; horizontal: siblings that read the same
//    buffer load it once);
//  - kernels over the same rows into one fused kernel: when their outer loops share a prefix
//    (the rows) and each later kernel reads what an earlier one wrote only in the same row,
//    the parts run one after another per row, so a row comes from memory once (softmax,
//    layer_norm: reductions then a pointwise epilogue);
//  - reductions over the same loops that read a buffer in common into one kernel of several
//    reduce ops, each with its own state (merge_reductions.h): the buffer is read once. A
//    later reduction may move up to an earlier one past the kernels between them when it
//    reads nothing they write and writes nothing they read or write;
//  - a kernel behind column reductions (which join nothing after them) into the kernel before
//    them, under the same condition.
// Temporaries no kernel reads any more disappear with the ops that computed them. The kernels
// of each region of a control kernel (loop_control.h) are scheduled as a list of their own:
// nothing joins across a region's boundary.
#pragma once

#include <cstdint>

#include "lower/loop_ir.h"

namespace kiln {

struct ScheduleOptions {
  bool merge_pointwise = true;
  bool fuse_rows = true;
  bool merge_reductions = true;
  // ... column reductions among them (loop_ir.h's is_column_reduction), for a backend whose
  // interchanged loops hold several reduce ops (the CUDA one; the C++ one keeps one).
  bool merge_column_reductions = false;
  // A fused kernel needs this many rows (points of its shared loops) to run in parallel ...
  int64_t min_rows = 16;
  // ... and each part's row must read at most this many bytes (part_row_bytes), so that it
  // stays in cache between parts (32768 4-byte elements).
  int64_t max_row_bytes = 131072;
};

// The bytes one row of `part` reads from memory, the part fused over its first `rows` loops:
// for each buffer it loads, the points of its own loops times the buffer's dtype size. A load
// whose index moves with no own loop (a row's statistic: one element a row) or, direct, with
// no row loop (a layer_norm's weight: what every row reads alike, in cache once for all) is
// not counted.
int64_t part_row_bytes(const LoopKernel& part, size_t rows);

void schedule_kernels(LoopProgram& p, const ScheduleOptions& options = {});

}  // namespace kiln
