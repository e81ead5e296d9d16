// Sizes, strides and offsets that come from a user (Tensor's constructors and as_strided, an
// op's size attributes), checked before anything is allocated or read: every size is
// non-negative, byte counts fit in int64 and under kMaxTensorBytes, and a view reads only
// elements of its storage. The errors say what is wrong; callers prefix the call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "core/dtype.h"
#include "support/diagnostic.h"

namespace kiln {

// The largest tensor kiln allocates, 1 TiB: a larger one is a size typo, and beyond what
// AddressSanitizer's allocator serves, so the sanitized build fails the same way.
inline constexpr int64_t kMaxTensorBytes = int64_t{1} << 40;

// The bytes of a contiguous tensor of `sizes` and `dtype`. An error names a negative size
// ("dim 1 has the negative size -1") or a byte count past kMaxTensorBytes.
Expected<int64_t> contiguous_bytes(std::span<const int64_t> sizes, DType dtype);

// Ok when the view `sizes`/`strides` (equal ranks) from element `offset` reads only the
// elements of `dtype` that a storage of `storage_bytes` bytes holds. Strides may be negative
// or zero; a view with a size 0 reads nothing and fits anywhere.
Status check_view_fits(std::span<const int64_t> sizes, std::span<const int64_t> strides, int64_t offset, DType dtype,
                       size_t storage_bytes);

// "[3, -1]": sizes or strides as the errors print them.
std::string int_list_text(std::span<const int64_t> values);

}  // namespace kiln
