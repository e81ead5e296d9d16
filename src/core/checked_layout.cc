#include "core/checked_layout.h"

#include <algorithm>
#include <string>

namespace kiln {

Expected<int64_t> contiguous_bytes(std::span<const int64_t> sizes, DType dtype) {
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] < 0) return make_error("dim ", d, " has the negative size ", sizes[d]);
  // Over max(size, 1), which the row-major strides reach even when some size is 0.
  int64_t bytes = dtype_size(dtype);
  bool overflow = false;
  for (int64_t s : sizes) overflow = overflow || __builtin_mul_overflow(bytes, std::max<int64_t>(s, 1), &bytes);
  const bool empty = std::find(sizes.begin(), sizes.end(), 0) != sizes.end();
  auto type = [&] { return std::string(dtype_name(dtype)) + int_list_text(sizes); };
  if (overflow) return make_error(type(), " spans more than 2^63 bytes");
  if (!empty && bytes > kMaxTensorBytes)
    return make_error(type(), " takes ", bytes, " bytes, more than the largest tensor kiln allocates (2^40 bytes)");
  return empty ? 0 : bytes;
}

Status check_view_fits(std::span<const int64_t> sizes, std::span<const int64_t> strides, int64_t offset, DType dtype,
                       size_t storage_bytes) {
  if (sizes.size() != strides.size())
    return make_error("sizes ", int_list_text(sizes), " and strides ", int_list_text(strides), " differ in rank");
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] < 0) return make_error("dim ", d, " has the negative size ", sizes[d]);
  for (int64_t s : sizes)
    if (s == 0) return Status::ok();
  // The lowest and highest elements the view reads, relative to `offset`.
  int64_t low = 0, high = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    int64_t reach = 0;
    if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &reach) ||
        __builtin_add_overflow(strides[d] < 0 ? low : high, reach, strides[d] < 0 ? &low : &high))
      return make_error("the view ", int_list_text(sizes), " with strides ", int_list_text(strides),
                        " spans more than 2^63 elements");
  }
  const int64_t elements = static_cast<int64_t>(storage_bytes / static_cast<size_t>(dtype_size(dtype)));
  int64_t first = 0, last = 0;
  if (__builtin_add_overflow(offset, low, &first) || __builtin_add_overflow(offset, high, &last) || first < 0 ||
      last >= elements)
    return make_error("the view ", int_list_text(sizes), " with strides ", int_list_text(strides), " from offset ",
                      offset, " reads outside its storage of ", elements, " elements of ", dtype_name(dtype));
  return Status::ok();
}

std::string int_list_text(std::span<const int64_t> values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

}  // namespace kiln
