// The compiled CPU runtime's memory. Every buffer it allocates (the memory plan's arena,
// outputs, copies of inputs and outputs, the training runners' output gradients) comes from
// allocate_storage, which reports a request the system cannot meet as a Diagnostic naming
// what was being allocated and how many bytes, never as std::bad_alloc; and every buffer's
// byte count is checked against int64 overflow before the memory plan adds them up.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/storage.h"
#include "core/tensor.h"
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

// What an allocation is for, a phrase such as "output buffer %out0 (f32[100]) of loops @g";
// called only to word an error, so that runs that succeed build no text.
using AllocationPurpose = std::function<std::string()>;

// `bytes` of uninitialized memory (Storage's alignment). Out of memory is the error "out of
// memory: cannot allocate <bytes> bytes for <purpose>".
Expected<std::unique_ptr<Storage>> allocate_storage(int64_t bytes, const AllocationPurpose& purpose);

// A contiguous tensor of `sizes` over fresh, uninitialized storage (allocate_storage).
Expected<Tensor> allocate_tensor(const std::vector<int64_t>& sizes, DType dtype, const AllocationPurpose& purpose);

}  // namespace kiln
