// Byte counts of values and buffers in int64, checked for overflow: the compile driver checks
// a graph's values before lowering (lowering counts elements in int64) and a runtime checks a
// loop program's buffers before its memory plan adds them up.
#pragma once

#include <cstdint>
#include <vector>

#include "core/dtype.h"
#include "ir/graph.h"
#include "lower/loop_ir.h"
#include "support/diagnostic.h"

namespace kiln {

// Bytes of storage that a layout of `dtype` spans (1 + sum((size-1)*stride) elements, 0 when a
// size is 0): an error when a size or stride is negative or the count overflows int64.
Expected<int64_t> layout_bytes(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, DType dtype);

// Bytes of a dense tensor of `sizes` and `dtype`: an error when a size is negative or the
// count overflows int64.
Expected<int64_t> dense_bytes(const std::vector<int64_t>& sizes, DType dtype);

// Ok when every value of `g` (its subgraphs' too) whose shape is static has dense_bytes: an
// error at the first input or node whose does not (a size typo, or a symbolic dim bound to a
// size so large that a value's byte count overflows). Lowering counts elements in int64.
Status check_value_bytes(const Graph& g);

// Ok when the bytes of every buffer of `p`, and of all of them together, fit in int64: an
// error names the first buffer that does not. The memory plan adds them up in int64.
Status check_buffer_bytes(const LoopProgram& p);

}  // namespace kiln
