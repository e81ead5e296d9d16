// The compiled CPU runtime's memory. Every buffer it allocates (the memory plan's arena,
// outputs, copies of inputs and outputs, the training runners' output gradients) comes from
// allocate_storage, which reports a request the system cannot meet as a Diagnostic naming
// what was being allocated and how many bytes, never as std::bad_alloc (byte counts are
// checked against int64 overflow before: lower/byte_counts.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/storage.h"
#include "core/tensor.h"
#include "lower/byte_counts.h"
#include "support/diagnostic.h"

namespace kiln {

// What an allocation is for, a phrase such as "output buffer %out0 (f32[100]) of loops @g";
// called only to word an error, so that runs that succeed build no text.
using AllocationPurpose = std::function<std::string()>;

// `bytes` of uninitialized memory (Storage's alignment). Out of memory is the error "out of
// memory: cannot allocate <bytes> bytes for <purpose>".
Expected<std::unique_ptr<Storage>> allocate_storage(int64_t bytes, const AllocationPurpose& purpose);

// A contiguous tensor of `sizes` over fresh, uninitialized storage (allocate_storage).
Expected<Tensor> allocate_tensor(const std::vector<int64_t>& sizes, DType dtype, const AllocationPurpose& purpose);

}  // namespace kiln
