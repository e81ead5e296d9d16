// A fused part's row walked in memory (cuda_block_reduce.cc's parts) with vector accesses. Rows
// start anywhere: a row of 50257 bf16 starts at any 2-byte boundary, so where its vectors start
// is found per row at run time. A part of one own loop whose accesses at unit stride start each
// row at the same element (x[50257 * i0 + i1] and out0[50257 * i0 + i1]) walks its row as a
// head, the points before that element's first multiple of the width, one a thread; groups of
// `width` points a thread, those accesses as 16-byte (or narrower) vector pieces (every buffer
// starts on a 256-byte boundary, so a multiple of the width is a vector's boundary in each); a
// tail, the points after the last whole group, one a thread. Its other accesses (a weight all
// rows read, a row statistic) stay scalar at each lane's point.
#pragma once

#include <vector>

#include "codegen/cuda/cuda_vector_access.h"
#include "lower/loop_ir.h"

namespace kiln::cuda {

struct RowVectors {
  int width = 1;                     // 1: the part walks its row a point at a time
  std::vector<VectorAccess> access;  // per body op: Contiguous for the row's vector accesses
  IndexExpr row_start;               // those accesses' element at the row's first point
};

// The vector walk of `part` of a fused kernel over `rows` shared loops (its loops collapsed): a
// pointwise part over one own loop, its stores never repeating an element, or a reduction part
// over one reduce loop that stores nothing before its reduce ops; width 1 otherwise, or where
// no access moves at unit stride.
RowVectors row_vectors(const LoopProgram& p, const LoopKernel& part, int rows);

}  // namespace kiln::cuda
