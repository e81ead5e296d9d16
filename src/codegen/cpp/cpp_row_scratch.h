// Row scratch: values a fused kernel's later part recomputes, element for element, from an
// earlier part over the same inner loop. A softmax row computes exp(x - max) once to sum it
// and again to divide it; with a scratch array per row, the summing part stores each exp and
// the dividing part loads it back. Only values worth keeping (their expression has an exp,
// tanh, sigmoid, log, pow, division or square root) that vary along the inner loop are kept,
// and only when no part between the two writes a buffer the expression reads. The arrays live
// on the stack inside the row loops (at most kMaxScratchElements elements each), so rows stay
// independent.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "lower/loop_ir.h"

namespace kiln::cpp {

inline constexpr int64_t kMaxScratchElements = 4096;

struct RowScratch {
  struct Array {
    DType dtype = DType::F32;
    int64_t extent = 0;
  };
  std::vector<Array> arrays;              // named rs0, rs1, ... by position
  std::vector<std::map<int, int>> save;   // per part: body op -> the array it is stored into
  std::vector<std::map<int, int>> reuse;  // per part: body op -> the array it is loaded from

  bool empty() const { return arrays.empty(); }
};

// The scratch plan of fused kernel `k` whose shared row loops are its first `rows` loops.
RowScratch plan_row_scratch(const LoopKernel& k, int rows);

}  // namespace kiln::cpp
