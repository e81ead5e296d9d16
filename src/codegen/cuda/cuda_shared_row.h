// A fused row in memory held in shared memory (docs/CUDA_CODEGEN.md, "Long rows in shared
// memory"): the first part's row of one loaded buffer (x[50257 * i0 + i1]) is copied from global
// memory once a row into the block's dynamic shared memory, in its own dtype, and every part's
// walk of that buffer at that row reads shared memory instead of re-reading L2. The copy keeps
// global memory's alignment within 16 bytes (element i of the row at kiln_row[first % width +
// i], `first` the row's first element), so a 16-byte group of the row walk is a 16-byte shared
// load too.
#pragma once

#include <cstdint>

#include "lower/loop_ir.h"

namespace kiln::cuda {

struct SharedRow {
  int buffer = -1;      // -1: no row is held in shared memory
  IndexExpr row_start;  // the buffer's element at the row's first point (row_vectors' row_start)
  int width = 1;        // points of a 16-byte vector of the buffer
  int64_t points = 0;   // the row's points
  int64_t bytes = 0;    // the shared copy: points + width - 1 elements (its lead), 16-byte rounded

  // Whether load `op` of a part's row walk (its row_vectors' `start`, `row_points` points)
  // reads this row.
  bool holds(const BodyOp& op, const IndexExpr& start, int64_t row_points) const;
};

// The row fused kernel `k` (its loops collapsed, `rows` shared loops) may hold in shared memory:
// the first 16-byte Contiguous load of its first part's row walk (cuda_row_vectors.h), of a
// buffer no part stores; buffer -1 when there is none.
SharedRow plan_shared_row(const LoopProgram& p, const LoopKernel& k, int rows);

}  // namespace kiln::cuda
