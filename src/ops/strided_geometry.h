// Facts about an as_strided geometry (sizes, strides, storage offset) that the as_strided
// ops, their derivative rules and functionalization share: how much storage it reaches, and
// whether two of its indices can address the same element.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

// The number of storage elements (from element 0) the geometry reaches: offset + 1 + the
// sum of (size - 1) * stride; 0 when some size is 0 (then nothing is addressed).
int64_t strided_storage_extent(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, int64_t offset);

// Whether two distinct indices may address one element (a stride 0 over a dim of size > 1,
// or dims whose strides interleave). Conservative: false means they never do.
bool strided_may_overlap(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);

// Strides that make `new_sizes` a view of a tensor with `sizes`/`strides`, if any (ATen's
// computeStride: dims may be merged or split only within contiguous chunks). Where there are
// none, reshape copies and view fails.
std::optional<std::vector<int64_t>> view_strides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                                 const std::vector<int64_t>& new_sizes);

// "[2, 3]": int lists in error messages, written as ATen writes them.
std::string ints_str(const std::vector<int64_t>& v);

}  // namespace kiln
