// Element access and multi-index iteration for the reference kernels of the view, layout,
// indexing and nn ops, which address elements by computed indices rather than by
// broadcasting (kernel_util.h covers that case).
#pragma once

#include <cstdint>
#include <vector>

#include "core/element.h"
#include "core/tensor.h"

namespace kiln {

// Loads and stores of one tensor's elements by offset (in elements, from its first element).
// Non-floating dtypes go through int64 so integer values survive exactly.
class ElementAccess {
 public:
  explicit ElementAccess(const Tensor& t) : base_(t.data_bytes()), dtype_(t.dtype()) {}
  bool floating() const { return is_floating(dtype_); }
  double get(int64_t off) const { return load_double(base_, dtype_, off); }
  int64_t get_int(int64_t off) const { return load_int(base_, dtype_, off); }
  void set(int64_t off, double v) const { store_double(base_, dtype_, off, v); }
  void set_int(int64_t off, int64_t v) const { store_int(base_, dtype_, off, v); }
  // Copies element `src_off` of `src` to `off`, exactly when both are integral.
  void set_from(int64_t off, const ElementAccess& src, int64_t src_off) const {
    if (src.floating())
      set(off, src.get(src_off));
    else
      set_int(off, src.get_int(src_off));
  }

 private:
  std::byte* base_;
  DType dtype_;
};

// Element offset of multi-index `idx` in a tensor with `strides`.
inline int64_t offset_of(const std::vector<int64_t>& strides, const std::vector<int64_t>& idx) {
  int64_t off = 0;
  for (size_t i = 0; i < idx.size(); ++i) off += idx[i] * strides[i];
  return off;
}

// Calls f(idx) for every row-major multi-index of `sizes` (nothing when any size is 0).
template <typename F>
void for_each_multi_index(const std::vector<int64_t>& sizes, F&& f) {
  for (int64_t s : sizes)
    if (s == 0) return;
  std::vector<int64_t> idx(sizes.size(), 0);
  while (true) {
    f(idx);
    size_t d = sizes.size();
    while (d > 0) {
      --d;
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
      if (d == 0) return;
    }
    if (sizes.empty()) return;
  }
}

inline int64_t numel_of(const std::vector<int64_t>& v, size_t begin = 0, size_t end = SIZE_MAX) {
  int64_t n = 1;
  for (size_t i = begin; i < v.size() && i < end; ++i) n *= v[i];
  return n;
}

}  // namespace kiln
